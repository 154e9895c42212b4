// Every result format `import` reads, in one list: its name (--format), the tool that writes it,
// the shapes its files come in (how each is recognised from the first bytes, framed and parsed),
// the side inputs it needs, and how the tool can record one id per request. Detection, reading,
// --help, a run's tool and correlate's hints all read this list; a new format is one entry here.
import { ConfigError } from '../../../core/errors.js';
import { HEY_HEADER, K6_CSV_HEADER_START, heyRows, k6CsvRows, vegetaCsvRows } from './csv-formats.js';
import { gatlingBinaryDecoder, gatlingTextLine, looksLikeGatlingBinary } from './gatling.js';
import { jmeterRows, jmeterXmlDecoder } from './jmeter.js';
import { k6JsonLine, locustLine, vegetaJsonLine } from './json-formats.js';

/**
 * @typedef {import('./records.js').LineResult} LineResult
 * @typedef {[result: LineResult, where: number, text: () => string]} Framed a result, its line
 *   (or record) number and its text for an example
 * @typedef {{ push(chunk: Buffer): Framed[], end(): Framed[] }} Decoder fed the bytes as they come
 *
 * What a recogniser is shown of a file's first bytes.
 * @typedef {object} Head
 * @property {Buffer} bytes
 * @property {string} text the bytes as UTF-8, without a byte order mark
 * @property {string} line the first line, trimmed
 * @property {any} object the first line parsed, when it is a JSON object
 *
 * Side inputs a format may need beside its file.
 * @typedef {object} SideInputs
 * @property {number} [startedAtMs] the absolute start of relative times (hey's offsets)
 * @property {string} [url] the target, for formats that do not record it (hey)
 *
 * One shape of a format's files. Framing: `lines` hands each non-blank line to `line`, `json-lines`
 * each line parsed as JSON; `csv` hands the records of `delimiter` to `rows` (given the first record
 * when `header`); `binary` and `xml` feed the bytes to a `decoder` as they come.
 * @typedef {{ variant: string, recognise: (head: Head) => boolean } & (
 *   | { framing: 'lines', line: (text: string) => LineResult }
 *   | { framing: 'json-lines', line: (value: any) => LineResult }
 *   | { framing: 'csv', delimiter: string, header: boolean,
 *       rows: (inputs: SideInputs, header: string[] | undefined) => (fields: string[]) => LineResult }
 *   | { framing: 'binary' | 'xml', decoder: () => Decoder | Promise<Decoder> })} Shape
 *
 * @typedef {object} ImportFormat
 * @property {string} name what `--format` takes
 * @property {string} tool the run's tool (test_runs.meta tool, correlate's hint)
 * @property {Shape[]} shapes recognised in this order; with --format given and none recognised, the first
 * @property {Array<{ input: keyof SideInputs, flag: string, missing: string }>} needs side inputs it cannot do
 *   without: the flag that gives one and what to do when it is missing
 * @property {string} recordIds how the tool can send one id per request
 */

/** @param {string} line @param {string} delimiter the names of a header line, quotes removed */
const names = (line, delimiter) => line.split(delimiter).map((name) => name.replace(/^"|"$/g, ''));

/** @param {string} line @param {string} delimiter */
const jtlHeader = (line, delimiter) => {
  const header = names(line, delimiter);
  return header.includes('timeStamp') && header.includes('elapsed');
};

/**
 * A JTL of `delimiter` (JMeter's jmeter.save.saveservice.default_delimiter), read by its header.
 * @param {string} variant @param {string} delimiter @returns {Shape}
 */
const jtlShape = (variant, delimiter) => ({
  variant,
  recognise: ({ line }) => jtlHeader(line, delimiter),
  framing: 'csv',
  delimiter,
  header: true,
  rows: (_, header) => jmeterRows(header ?? []),
});

/** @param {string[]} start @param {string} line */
const startsWith = (start, line) => {
  const header = names(line, ',');
  return start.every((name, i) => header[i] === name);
};

/** The Gatling binary decoder's records, numbered. @returns {Decoder} */
function gatlingRecords() {
  const decoder = gatlingBinaryDecoder();
  let n = 0;
  return {
    push: (chunk) => decoder.push(chunk).map((result) => [result, ++n, () => 'binary']),
    end: () => decoder.end().map((result) => [result, ++n, () => 'a record cut short at the end of the file']),
  };
}

const K6_IDS = 'send the id as loadgen/tools/k6-correlation.mjs does (a header and a trace_id tag per request)';

/** @type {readonly ImportFormat[]} */
export const IMPORT_FORMATS = Object.freeze([
  {
    name: 'k6-json',
    tool: 'k6',
    shapes: [
      {
        variant: 'json',
        recognise: ({ object }) =>
          (object?.type === 'Metric' || object?.type === 'Point') && typeof object.metric === 'string',
        framing: 'json-lines',
        line: k6JsonLine,
      },
    ],
    needs: [],
    recordIds: K6_IDS,
  },
  {
    name: 'k6-csv',
    tool: 'k6',
    shapes: [
      {
        variant: 'csv',
        recognise: ({ line }) => startsWith(K6_CSV_HEADER_START, line),
        framing: 'csv',
        delimiter: ',',
        header: true,
        rows: (_, header) => k6CsvRows(header ?? []),
      },
    ],
    needs: [],
    recordIds: K6_IDS,
  },
  {
    name: 'jmeter',
    tool: 'jmeter',
    shapes: [
      jtlShape('csv', ','),
      jtlShape('tab-delimited', '\t'),
      {
        variant: 'xml',
        recognise: ({ text }) => /^\s*(<\?xml[^>]*\?>\s*)?<testResults\b/.test(text),
        framing: 'xml',
        decoder: jmeterXmlDecoder,
      },
    ],
    needs: [],
    recordIds:
      'add loadgen/tools/jmeter-correlation.jmx (User Parameters paasmon_id = ${__UUID()}, a Header Manager) ' +
      'and run with -Jsample_variables=paasmon_id',
  },
  {
    name: 'gatling',
    tool: 'gatling',
    shapes: [
      { variant: 'text', recognise: ({ line }) => line.startsWith('RUN\t'), framing: 'lines', line: gatlingTextLine },
      {
        variant: 'binary',
        recognise: ({ bytes }) => looksLikeGatlingBinary(bytes),
        framing: 'binary',
        decoder: gatlingRecords,
      },
    ],
    needs: [],
    recordIds: 'put the id in the request name as loadgen/tools/GatlingCorrelation.java does',
  },
  {
    name: 'locust',
    tool: 'locust',
    shapes: [
      {
        variant: 'json',
        recognise: ({ object }) => object !== undefined && 'start_time' in object && 'response_time' in object,
        framing: 'json-lines',
        line: locustLine,
      },
    ],
    needs: [],
    recordIds: 'use the listener and the request context of loadgen/tools/locustfile.py',
  },
  {
    name: 'hey',
    tool: 'hey',
    shapes: [
      {
        variant: 'csv',
        recognise: ({ line }) => startsWith(HEY_HEADER, line),
        framing: 'csv',
        delimiter: ',',
        header: false,
        rows: ({ startedAtMs, url }) => heyRows({ startedAtMs: /** @type {number} */ (startedAtMs), url }),
      },
    ],
    needs: [
      {
        input: 'startedAtMs',
        flag: '--started-at',
        missing: "hey's offsets are relative to its start: give --started-at TIME, or run it with run exec",
      },
    ],
    recordIds:
      'hey sends the same headers on every request and cannot; use vegeta, k6, or paasmon loadgen for a joined run',
  },
  {
    name: 'vegeta',
    tool: 'vegeta',
    shapes: [
      {
        variant: 'csv',
        recognise: ({ line }) => /^\d{19},\d{1,3},\d+,\d+,\d+,/.test(line),
        framing: 'csv',
        delimiter: ',',
        header: false,
        rows: () => vegetaCsvRows(),
      },
      {
        variant: 'json',
        recognise: ({ object }) =>
          object !== undefined && 'seq' in object && 'latency' in object && 'timestamp' in object,
        framing: 'json-lines',
        line: vegetaJsonLine,
      },
    ],
    needs: [],
    recordIds: 'make targets with loadgen/tools/vegeta-targets.js (the id in the header and the URL)',
  },
]);

/** The names `--format` takes. */
export const FORMATS = Object.freeze(IMPORT_FORMATS.map((format) => format.name));

/** The format `--format` names; a name not in the list is a usage error. @param {string} name */
export function formatNamed(name) {
  const format = IMPORT_FORMATS.find((known) => known.name === name);
  if (!format)
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(name)}`, {
      variable: '--format',
    });
  return format;
}

/** How `tool` can send one id per request, when it is a tool of the list. @param {string | null} tool */
export const recordIdsHint = (tool) => IMPORT_FORMATS.find((format) => format.tool === tool)?.recordIds;
