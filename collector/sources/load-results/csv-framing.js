// The `csv` framing of load results: rows of fields, each with the line it ends on (newlines inside
// quoted fields counted), read a chunk at a time; a row that cannot be framed is a `csv_framing` skip.
import { StringDecoder } from 'node:string_decoder';
import Papa from 'papaparse';
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { CSV_RECORD_MAX_CHARS } from '../../../core/tunables.js';

/** @typedef {import('./formats.js').Framed} Framed */
/** @typedef {Extract<import('./formats.js').Shape, { framing: 'csv' }>} CsvShape */

const noText = () => '';

/**
 * @param {CsvShape} shape @param {AsyncIterable<Buffer>} all
 * @param {import('./formats.js').SideInputs & { from?: number }} options @returns {AsyncGenerator<Framed[]>}
 */
export async function* csvResults(shape, all, options) {
  const rows = csvRows(shape.delimiter);
  let parse = shape.header ? undefined : shape.rows(options, undefined);
  /** @param {Array<[string[] | string, number]>} batch @returns {Framed[]} */
  const framed = (batch) => {
    /** @type {Framed[]} */
    const out = [];
    for (const [fields, line] of batch) {
      if (typeof fields === 'string') out.push([LOAD_RESULTS.CSV_FRAMING, line, () => fields]);
      else if (!parse) parse = shape.rows(options, fields);
      else {
        const result = parse(fields);
        // Only a skipped line's text is ever read: no closure per request.
        out.push([result, line, typeof result === 'string' ? () => fields.join(shape.delimiter) : noText]);
      }
    }
    return out;
  };
  const text = new StringDecoder('utf8');
  for await (const chunk of all) yield framed(rows(text.write(chunk), false));
  yield framed(rows(text.end(), true));
}

/**
 * A reader of CSV text fed in pieces: each call gives the rows complete so far, each as its fields
 * (or, where it cannot be framed, why) and the line it ends on; empty lines are left out.
 * @param {string} delimiter @returns {(piece: string, last: boolean) => Array<[string[] | string, number]>}
 */
export function csvRows(delimiter) {
  const parser = new Papa.Parser({ delimiter, newline: '\n' });
  let line = 0;
  let rest = '';
  let first = true;
  return function rows(piece, last) {
    let input = rest + piece;
    if (first && input.length) {
      first = false;
      if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
    }
    const parsed = parser.parse(input, 0, !last);
    rest = last ? '' : input.slice(parsed.meta.cursor);
    const out = framedRows(input, parsed, line);
    line = out.line;
    if (rest.length <= CSV_RECORD_MAX_CHARS) return out.rows;
    // One record this long is a quote left open: its first line is skipped, the next ones read again.
    const cut = rest.indexOf('\n');
    line += 1;
    out.rows.push([`a quote is left open for over ${CSV_RECORD_MAX_CHARS} characters`, line]);
    // A line this long without an end is dropped whole: what follows it is read as new lines.
    const again = cut < 0 ? '' : rest.slice(cut + 1);
    rest = '';
    return out.rows.concat(rows(again, last));
  };
}

/**
 * Papa's rows with their line numbers and its quote errors, and a quote inside an unquoted field (read
 * as text by Papa) as errors too.
 * @param {string} input @param {any} parsed @param {number} line the line before the input's first
 */
function framedRows(input, parsed, line) {
  /** @type {Map<number, string>} */
  const errors = new Map();
  for (const e of parsed.errors) if (!errors.has(e.row)) errors.set(e.row, String(e.message));
  const quoted = input.includes('"');
  const raw = quoted ? rawLines(input, line) : undefined;
  /** @type {Array<[string[] | string, number]>} */
  const rows = [];
  for (let i = 0; i < parsed.data.length; i++) {
    const fields = /** @type {string[]} */ (parsed.data[i]);
    const start = line + 1;
    line += 1;
    const end = fields.length - 1;
    if (fields[end].endsWith('\r')) fields[end] = fields[end].slice(0, -1);
    if (quoted) for (const field of fields) line += newlines(field);
    const error = errors.get(i) ?? (raw ? strayQuote(fields, () => raw(start, line)) : undefined);
    if (error !== undefined) rows.push([error, line]);
    else if (end > 0 || fields[0] !== '') rows.push([fields, line]);
  }
  return { rows, line };
}

/** @param {string} text */
function newlines(text) {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n += 1;
  return n;
}

/**
 * Why a row is not CSV when a field holds a quote that is not in the quoted form of it (Papa reads a
 * quote inside an unquoted field as text), else undefined.
 * @param {string[]} fields @param {() => string} written the row as written @returns {string | undefined}
 */
function strayQuote(fields, written) {
  for (const field of fields) {
    if (!field.includes('"')) continue;
    const text = written();
    if (!text.includes(`"${field.replaceAll('"', '""')}"`)) return `a quote inside an unquoted field: ${text}`;
  }
  return undefined;
}

/**
 * The text of lines `from`..`to` of the input (its first line numbered `before` + 1), asked for in order.
 * @param {string} input @param {number} before @returns {(from: number, to: number) => string}
 */
function rawLines(input, before) {
  let at = 0;
  let atLine = before + 1;
  return (from, to) => {
    for (; atLine < from && at >= 0; atLine++) at = input.indexOf('\n', at) + 1 || -1;
    if (at < 0) return '';
    let end = at;
    for (let n = from; n <= to && end >= 0; n++) end = input.indexOf('\n', end) + 1 || -1;
    return input.slice(at, end < 0 ? input.length : end);
  };
}
