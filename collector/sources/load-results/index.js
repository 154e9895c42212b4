// A paged source of load-tool results: a file (or stdin) of any supported format becomes pages
// of loadgen_request records, each with the lines that could not be read, counted by reason with
// the first example. Streams: memory holds one page whatever the file's size.
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { ConfigError } from '../../../core/errors.js';
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { heyRows, jmeterRows, k6CsvRows, vegetaCsvRows } from './csv-formats.js';
import { FORMATS, detectFormat } from './detect.js';
import { gatlingBinaryDecoder, gatlingTextLine, looksLikeGatlingBinary } from './gatling.js';
import { k6JsonLine, locustLine, vegetaJsonLine } from './json-formats.js';
import { isoMicros, rowKey } from './records.js';

export { FORMATS } from './detect.js';
export { DERIVED_KEY_PREFIX } from './records.js';

/**
 * @typedef {object} ResultsPage
 * @property {import('./records.js').ImportedRequest[]} records
 * @property {Map<string, number>} skipped lines by reason
 * @property {Map<string, string>} examples the first skipped line of each reason: `line N: text`
 * @property {number} withIds records that carry the tool's correlation id
 *
 * @typedef {object} ReadOptions
 * @property {string} [format] one of FORMATS; detected from the content when absent
 * @property {number} [startedAtMs] the absolute start of relative times (hey's offsets)
 * @property {string} [url] the target, for formats that do not record it (hey)
 * @property {number} [pageSize]
 */

const HEAD_BYTES = 4096;

/**
 * The first bytes of the input and the whole input again (the head put back in front).
 * @param {NodeJS.ReadableStream} input @returns {Promise<{ head: Buffer, all: Readable }>}
 */
async function peek(input) {
  const iterator = input[Symbol.asyncIterator]();
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  let done = false;
  while (size < HEAD_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    chunks.push(chunk);
    size += chunk.length;
  }
  async function* again() {
    yield* chunks;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head: Buffer.concat(chunks), all: Readable.from(again(), { objectMode: false }) };
}

/**
 * The format's lines as parse results, each with where it came from.
 * @param {string} format @param {Readable} all @param {Buffer} head @param {ReadOptions} options
 * @returns {AsyncGenerator<[result: import('./records.js').LineResult, where: number, text: () => string]>}
 */
async function* results(format, all, head, options) {
  if (format === 'gatling' && looksLikeGatlingBinary(head)) {
    const decoder = gatlingBinaryDecoder();
    let n = 0;
    for await (const chunk of all) for (const result of decoder.push(chunk)) yield [result, ++n, () => 'binary'];
    for (const result of decoder.end()) yield [result, ++n, () => 'a record cut short at the end of the file'];
    return;
  }
  const lineParser = {
    'k6-json': json(k6JsonLine),
    locust: json(locustLine),
    vegeta: json(vegetaJsonLine),
    gatling: gatlingTextLine,
  }[format];
  if (lineParser && !(format === 'vegeta' && !head.toString('latin1').trimStart().startsWith('{'))) {
    let n = 0;
    for await (const line of readline.createInterface({ input: all, crlfDelay: Infinity })) {
      n += 1;
      if (line.trim() !== '') yield [lineParser(line), n, () => line];
    }
    return;
  }
  yield* csvResults(format, all, options);
}

/** @param {(line: any) => import('./records.js').LineResult} parse */
const json = (parse) => (/** @type {string} */ line) => {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return LOAD_RESULTS.BAD_JSON;
  }
  return parse(value);
};

/**
 * @param {string} format @param {Readable} all @param {ReadOptions} options
 * @returns {AsyncGenerator<[result: import('./records.js').LineResult, where: number, text: () => string]>}
 */
async function* csvResults(format, all, options) {
  const csv = all.pipe(
    parseCsv({
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      bom: true,
      skip_records_with_error: true,
    }),
  );
  // A record csv-parse cannot frame (a quote left open where a file was cut) is skipped, not fatal.
  /** @type {Array<{ lines: number, message: string }>} */
  const unframed = [];
  csv.on('skip', (/** @type {any} */ err) =>
    unframed.push({ lines: Number(err?.lines) || 0, message: String(err?.message) }),
  );
  /** @type {((fields: string[]) => import('./records.js').LineResult) | undefined} */
  let parse;
  if (format === 'hey') {
    if (options.startedAtMs === undefined)
      throw new ConfigError(
        "hey's offsets are relative to its start: give --started-at TIME, or run it with run exec",
        {
          variable: '--started-at',
        },
      );
    parse = heyRows({ startedAtMs: options.startedAtMs, url: options.url });
  } else if (format === 'vegeta') parse = vegetaCsvRows();
  for await (const { record, info } of csv) {
    for (const { lines, message } of unframed.splice(0)) yield [LOAD_RESULTS.CSV_FRAMING, lines, () => message];
    const fields = /** @type {string[]} */ (record);
    if (!parse) {
      parse = format === 'jmeter' ? jmeterRows(fields) : k6CsvRows(fields);
      continue;
    }
    yield [parse(fields), info.lines, () => fields.join(',')];
  }
  for (const { lines, message } of unframed.splice(0)) yield [LOAD_RESULTS.CSV_FRAMING, lines, () => message];
}

/**
 * Reads a result file into pages.
 * @param {NodeJS.ReadableStream} input @param {ReadOptions} [options]
 * @returns {Promise<{ format: string, pages: AsyncGenerator<ResultsPage> }>}
 */
export async function readLoadResults(input, options = {}) {
  const { head, all } = await peek(input);
  let format = options.format;
  if (format !== undefined && !FORMATS.includes(format))
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, {
      variable: '--format',
    });
  if (format === undefined) {
    if (head.length === 0) throw new ConfigError('the results are empty: nothing to import', { variable: 'FILE' });
    const detected = detectFormat(head);
    if ('problem' in detected)
      throw new ConfigError(
        `cannot tell the results' format: ${detected.problem}; give --format ${FORMATS.join('|')}`,
        {
          variable: '--format',
        },
      );
    format = detected.format;
  }
  return { format, pages: pagesOf(results(format, all, head, options), options.pageSize ?? 5000) };
}

/**
 * @param {AsyncIterable<[import('./records.js').LineResult, number, () => string]>} lines
 * @param {number} pageSize @returns {AsyncGenerator<ResultsPage>}
 */
async function* pagesOf(lines, pageSize) {
  const fresh = () => ({ records: [], skipped: new Map(), examples: new Map(), withIds: 0 });
  /** @type {ResultsPage} */
  let page = fresh();
  let ordinal = 0;
  for await (const [result, where, text] of lines) {
    if (result === null) continue;
    if (typeof result === 'string') {
      page.skipped.set(result, (page.skipped.get(result) ?? 0) + 1);
      if (!page.examples.has(result)) page.examples.set(result, `line ${where}: ${text().slice(0, 120)}`);
      continue;
    }
    ordinal += 1;
    if (result.correlationId) page.withIds += 1;
    else result.correlationId = rowKey(result, ordinal);
    result.startedAt = isoMicros(result.startedAtMs);
    page.records.push(result);
    if (page.records.length >= pageSize) {
      yield page;
      page = fresh();
    }
  }
  if (page.records.length || page.skipped.size) yield page;
}
