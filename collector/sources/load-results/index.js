// A paged source of load-tool results: a file (or stdin) of any supported format becomes pages
// of loadgen_request records, each with the lines that could not be read, counted by reason with
// the first example. Streams: memory holds one page whatever the file's size.
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { ConfigError } from '../../../core/errors.js';
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { csvResults } from './csv-framing.js';
import { detectShape, shapeOf } from './detect.js';
import { FORMATS, formatNamed } from './formats.js';
import { isoMicros, rowKey } from './records.js';

export { FORMATS, formatNamed } from './formats.js';
export { DERIVED_KEY_PREFIX } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */
/** @typedef {import('./formats.js').Framed} Framed */
/** @typedef {import('./formats.js').Shape} Shape */

/**
 * @typedef {object} ResultsPage
 * @property {import('./records.js').ImportedRequest[]} records
 * @property {Map<string, number>} skipped lines by reason
 * @property {Map<string, string>} examples the first skipped line of each reason: `line N: text`
 * @property {number} withIds records that carry the tool's correlation id
 * @property {number} warmup requests sent before ReadOptions' `from`, left out
 *
 * @typedef {import('./formats.js').SideInputs & { format?: string, pageSize?: number, from?: number }}
 *   ReadOptions format: one of FORMATS, detected from the content when absent; from: epoch ms, requests sent
 *   before it are left out (a warm-up), counted in `warmup`
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
 * The shape's records as parse results, each with where it came from, in batches (one per chunk
 * read where the framing allows: a promise per record cost more than reading it).
 * @param {Shape} shape @param {Readable} all @param {ReadOptions} options @returns {AsyncGenerator<Framed[]>}
 */
async function* results(shape, all, options) {
  if (shape.framing === 'csv') yield* csvResults(shape, all, options);
  else if (shape.framing === 'lines' || shape.framing === 'json-lines') {
    const parse = shape.framing === 'lines' ? shape.line : json(shape.line);
    let n = 0;
    for await (const line of readline.createInterface({ input: all, crlfDelay: Infinity })) {
      n += 1;
      if (line.trim() !== '') yield [[parse(line), n, () => line]];
    }
  } else {
    const decoder = await shape.decoder();
    for await (const chunk of all) yield decoder.push(chunk);
    yield decoder.end();
  }
}

/** @param {(value: any) => LineResult} parse @returns {(line: string) => LineResult} */
const json = (parse) => (line) => {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return LOAD_RESULTS.BAD_JSON;
  }
  return parse(value);
};

/**
 * The format and shape to read: --format's (the shape its head fits), or the one the head is.
 * @param {Buffer} head @param {string | undefined} name
 */
function formatOf(head, name) {
  if (name !== undefined) {
    const format = formatNamed(name);
    return { format, shape: shapeOf(format, head) };
  }
  if (head.length === 0) throw new ConfigError('the results are empty: nothing to import', { variable: 'FILE' });
  const detected = detectShape(head);
  if ('problem' in detected)
    throw new ConfigError(`cannot tell the results' format: ${detected.problem}; give --format ${FORMATS.join('|')}`, {
      variable: '--format',
    });
  return detected;
}

/**
 * Reads a result file into pages.
 * @param {NodeJS.ReadableStream} input @param {ReadOptions} [options]
 * @returns {Promise<{ format: string, tool: string, variant: string, pages: AsyncGenerator<ResultsPage> }>}
 */
export async function readLoadResults(input, options = {}) {
  const { head, all } = await peek(input);
  const { format, shape } = formatOf(head, options.format);
  for (const { input: needed, flag, missing } of format.needs)
    if (options[needed] === undefined) throw new ConfigError(missing, { variable: flag });
  return {
    format: format.name,
    tool: format.tool,
    variant: shape.variant,
    pages: pagesOf(results(shape, all, options), options.pageSize ?? 5000, options.from ?? -Infinity),
  };
}

/**
 * @param {AsyncIterable<Framed[]>} batches @param {number} pageSize @param {number} from
 * @returns {AsyncGenerator<ResultsPage>}
 */
async function* pagesOf(batches, pageSize, from) {
  const fresh = () => ({ records: [], skipped: new Map(), examples: new Map(), withIds: 0, warmup: 0 });
  /** @type {ResultsPage} */
  let page = fresh();
  let ordinal = 0;
  for await (const batch of batches) {
    for (const [result, where, text] of batch) {
      if (result === null) continue;
      if (typeof result === 'string') {
        page.skipped.set(result, (page.skipped.get(result) ?? 0) + 1);
        if (!page.examples.has(result)) page.examples.set(result, `line ${where}: ${text().slice(0, 120)}`);
        continue;
      }
      ordinal += 1;
      // After the ordinal: a row's derived key is the same with a warm-up left out or not.
      if (result.startedAtMs < from) {
        page.warmup += 1;
        continue;
      }
      if (result.correlationId) page.withIds += 1;
      else result.correlationId = rowKey(result, ordinal);
      result.startedAt = isoMicros(result.startedAtMs);
      page.records.push(result);
      if (page.records.length >= pageSize) {
        yield page;
        page = fresh();
      }
    }
  }
  if (page.records.length || page.skipped.size || page.warmup) yield page;
}
