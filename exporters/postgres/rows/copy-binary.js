// Records as the tuples of a binary-format COPY (PostgreSQL "COPY", File Formats), for every record
// kind, driven by the typed table specs of tables.js: each field is its length in 4 bytes (-1 for
// NULL), then the column type's binary form. Parsing binary costs PostgreSQL far less than text
// (timestamps above all), and writing it costs no escape pass.
import { digitsAt, wholeSecondsMs } from '../../../core/utc-time.js';
import { cleanedText } from './clean-text.js';

/** @typedef {'text' | 'bool' | 'int4' | 'int8' | 'float8' | 'timestamptz'} ColumnType */
/** @typedef {ColumnType} BinaryType */

/** Midnight 2000-01-01 UTC, where PostgreSQL's binary timestamps count from, in Unix ms. */
export const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/**
 * An integer as the 8 bytes of a binary int8; exact for |value| < 2^53 (no BigInt per row).
 * @param {Buffer} page @param {number} at @param {number} value
 */
export function writeInt64(page, at, value) {
  const high = Math.floor(value / 2 ** 32);
  page.writeInt32BE(high, at);
  page.writeUInt32BE(value - high * 2 ** 32, at + 4);
}

/** UTC RFC 3339 with up to six fraction digits, as the parsers write times (parseRouterTimestamp). */
const UTC_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;
/** The length of `2026-11-21T10:00:00.123456Z`, the form parseRouterTimestamp always writes. */
const MICROS_TIME_LENGTH = 27;

/**
 * Microseconds since 2000-01-01 UTC of a time in any of the forms records carry it: a UTC string
 * (to the microsecond, parseRouterTimestamp's form; another form to the millisecond), a Date (to
 * the millisecond), or Unix milliseconds with a fraction (rounded to the microsecond, what
 * PostgreSQL keeps). The whole seconds of the last string are kept (rows of one page mostly share
 * them), others read digit by digit: cheaper than a regular expression and Date.parse per row.
 */
export function timestampEncoder() {
  let lastSecond = '\0';
  let lastSecondUs = 0;
  /** @param {string} value @param {string} column */
  const slow = (value, column) => {
    const parts = UTC_TIME.exec(value);
    const ms = Date.parse(parts ? `${parts[1]}Z` : value);
    if (Number.isNaN(ms)) throw new Error(`postgres: ${column} is not a time: ${value.slice(0, 40)}`);
    if (!parts) return (ms - POSTGRES_EPOCH_MS) * 1000;
    lastSecond = parts[1];
    lastSecondUs = (ms - POSTGRES_EPOCH_MS) * 1000;
    return lastSecondUs + Number((parts[2] ?? '').padEnd(6, '0'));
  };
  /** @param {unknown} value @param {string} column @returns {number} */
  return (value, column) => {
    if (typeof value === 'number') return Math.round(value * 1000) - POSTGRES_EPOCH_MS * 1000;
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new Error(`postgres: ${column} is not a time: Invalid Date`);
      return (value.getTime() - POSTGRES_EPOCH_MS) * 1000;
    }
    if (typeof value !== 'string') throw new Error(`postgres: ${column} is not a time: ${String(value).slice(0, 40)}`);
    if (value.length !== MICROS_TIME_LENGTH || value[26] !== 'Z' || value[19] !== '.') return slow(value, column);
    if (!value.startsWith(lastSecond)) {
      const ms = value[10] === 'T' ? wholeSecondsMs(value) : Number.NaN;
      if (Number.isNaN(ms)) return slow(value, column);
      lastSecond = value.slice(0, 19);
      lastSecondUs = (ms - POSTGRES_EPOCH_MS) * 1000;
    }
    const micros = digitsAt(value, 20, 6);
    return Number.isNaN(micros) ? slow(value, column) : lastSecondUs + micros;
  };
}

/** A row takes a few hundred bytes with short text; the buffer doubles when rows are longer. */
const BYTES_PER_ROW_HINT = 384;

/**
 * A growing buffer of binary tuples: row(), then one field() per column, then done(). Fixed-size
 * values are written through a DataView (inlined by V8, where Buffer's writers check each call).
 * @param {number} rowsHint
 */
export function tupleWriter(rowsHint) {
  let page = Buffer.allocUnsafeSlow(Math.max(1024, rowsHint * BYTES_PER_ROW_HINT));
  let view = new DataView(page.buffer, page.byteOffset, page.length);
  let at = 0;
  let rows = 0;
  /** Rows with text cleaned (clean-text.js), and whether the current row is one. */
  let [cleaned, rowCleaned] = [0, false];
  const toTime = timestampEncoder();
  /** @param {number} bytes */
  const room = (bytes) => {
    if (page.length - at >= bytes) return;
    const bigger = Buffer.allocUnsafeSlow(2 * page.length + bytes);
    page.copy(bigger, 0, 0, at);
    page = bigger;
    view = new DataView(page.buffer, page.byteOffset, page.length);
  };
  /** An integer's field of 8 bytes, exact for |value| < 2^53. @param {number} value */
  const int64Field = (value) => {
    room(12);
    const high = Math.floor(value / 2 ** 32);
    view.setInt32(at, 8);
    view.setInt32(at + 4, high);
    view.setUint32(at + 8, value - high * 2 ** 32);
    at += 12;
  };
  // The value goes 4 bytes after the length, and `at` past both.
  /** @param {number} value */
  const int4Field = (value) => (room(8), view.setInt32(at, 4), view.setInt32((at += 8) - 4, value));
  /** @param {number} value */
  const float8Field = (value) => (room(12), view.setInt32(at, 8), view.setFloat64((at += 12) - 8, value));
  /** NULL's field: a length of -1 and no bytes. */
  const nullField = () => (room(4), view.setInt32(at, -1), (at += 4), undefined);
  /** @param {unknown} value */
  const text = (value) => {
    const string = String(value);
    // At most 3 bytes of UTF-8 per UTF-16 unit (cleaning keeps the count of units).
    room(4 + 3 * string.length);
    const bytes = utf8At(page, at + 4, string);
    if (textCleaned && !rowCleaned) cleaned += 1;
    rowCleaned ||= textCleaned;
    view.setInt32(at, bytes);
    at += 4 + bytes;
  };
  /** A writer per column type, NULL for an absent value: field()'s, or a row encoder's (rowEncoder) own calls. */
  /** @type {Record<ColumnType, (value: any, column: string) => void>} */
  const typed = {
    text: (value) => (isAbsent(value) ? nullField() : text(value)),
    bool: (value) =>
      isAbsent(value) ? nullField() : (room(5), view.setInt32(at, 1), view.setUint8(at + 4, +!!value), (at += 5)),
    int4: (value, column) => (isAbsent(value) ? nullField() : int4Field(integer(value, column, 2 ** 31))),
    int8: (value, column) => (isAbsent(value) ? nullField() : int64Field(integer(value, column, 2 ** 53))),
    float8: (value) => (isAbsent(value) ? nullField() : float8Field(Number(value))),
    timestamptz: (value, column) => (isAbsent(value) ? nullField() : int64Field(toTime(value, column))),
  };
  /** Where the current row starts, so a row whose value cannot be encoded leaves nothing behind. */
  let rowStart = 0;
  return {
    /** @param {number} fields */
    row(fields) {
      room(2);
      rowStart = at;
      view.setInt16(at, fields);
      at += 2;
      rows += 1;
      rowCleaned = false;
    },
    /** Takes the current row back out (a value of it could not be encoded). */
    dropRow: () => ((at = rowStart), (rows -= 1), (cleaned -= rowCleaned ? 1 : 0), (rowCleaned = false)),
    /** @param {ColumnType} type @param {unknown} value @param {string} column */
    field(type, value, column) {
      if (isAbsent(value)) return nullField();
      const write = typed[type];
      if (!write) throw new Error(`postgres: no binary form for ${type}`);
      write(value, column);
    },
    ...typed,
    /** @returns {import('../../../core/types.js').EncodedRows} */
    done: () => ({ data: page.subarray(0, at), rows, cleaned }),
  };
}

/**
 * @typedef {ReturnType<typeof tupleWriter>} TupleWriter
 * @typedef {Array<[column: string, toValue: (record: any) => unknown, type: ColumnType]>} Columns
 */

/**
 * router_requests' columns (tables.js) in the order and types the row encoder written out for them
 * writes: the one table whose rows are encoded by the hundred thousand in one ingest.
 */
const ROUTER_REQUEST_COLUMNS = [
  'received_at timestamptz',
  'app_guid text',
  'app_name text',
  'app_index int4',
  'instance_id text',
  'method text',
  'path text',
  'status int4',
  'response_time_ms float8',
  'gorouter_time_ms float8',
  'response_time_resolution_ms float8',
  'bytes_received int8',
  'bytes_sent int8',
  'vcap_request_id text',
  'correlation_id text',
  'router_error text',
  'trace_id text',
].join(',');

/**
 * The function that writes one record's columns into a tuple writer (after its row()): for
 * router_requests' columns, the calls written out one by one (each column's value read and written
 * by a call site of its own, which V8 inlines, where the generic loop dispatches every value by its
 * type); for any other columns, the generic loop. Both write the same bytes.
 * @param {Columns} columns
 * @returns {(tuples: TupleWriter, record: unknown) => void}
 */
export function rowEncoder(columns) {
  if (hasWrittenOutEncoder(columns)) {
    const [at, guid, name, index, instance, method, path, status, response, gorouter, resolution, ...rest] =
      columns.map(([, toValue]) => toValue);
    const [received, sent, vcap, correlation, error, trace] = rest;
    return (t, r) => {
      t.timestamptz(at(r), 'received_at');
      t.text(guid(r), 'app_guid');
      t.text(name(r), 'app_name');
      t.int4(index(r), 'app_index');
      t.text(instance(r), 'instance_id');
      t.text(method(r), 'method');
      t.text(path(r), 'path');
      t.int4(status(r), 'status');
      t.float8(response(r), 'response_time_ms');
      t.float8(gorouter(r), 'gorouter_time_ms');
      t.float8(resolution(r), 'response_time_resolution_ms');
      t.int8(received(r), 'bytes_received');
      t.int8(sent(r), 'bytes_sent');
      t.text(vcap(r), 'vcap_request_id');
      t.text(correlation(r), 'correlation_id');
      t.text(error(r), 'router_error');
      t.text(trace(r), 'trace_id');
    };
  }
  return genericRowEncoder(columns);
}

/** Whether rowEncoder writes these columns by calls written out for them. @param {Columns} columns */
export const hasWrittenOutEncoder = (columns) =>
  columns.map(([column, , type]) => `${column} ${type}`).join(',') === ROUTER_REQUEST_COLUMNS;

/** Any columns: each value dispatched by its column's type. @param {Columns} columns */
export function genericRowEncoder(columns) {
  const count = columns.length;
  const names = columns.map(([column]) => column);
  const values = columns.map(([, toValue]) => toValue);
  const types = columns.map(([, , type]) => type);
  return (t, r) => {
    for (let i = 0; i < count; i++) t.field(types[i], values[i](r), names[i]);
  };
}

/** Whether utf8At wrote the last text cleaned. */
let textCleaned = false;

/**
 * `string` as UTF-8 at `start` (room for 3 bytes a unit), cleaned (clean-text.js) when it must be;
 * returns its bytes and sets textCleaned.
 * @param {Buffer} page @param {number} start @param {string} string
 */
function utf8At(page, start, string) {
  const n = string.length;
  const i = asciiPrefix(page, start, string);
  textCleaned = false;
  if (i === n) return n;
  // Only text that is not plain ASCII without 0x00 is looked at for cleaning.
  const clean = cleanedText(string);
  textCleaned = clean !== undefined;
  return page.write(clean ?? string, start, 'utf8');
}

/**
 * Writes the plain ASCII start of `string` (no 0x00) at `start`, byte by byte: cheaper than a call
 * into C++ for ids and paths of a few dozen characters. Returns how many units it wrote.
 * @param {Buffer} page @param {number} start @param {string} string
 */
function asciiPrefix(page, start, string) {
  const n = string.length;
  let i = 0;
  for (; i < n; i++) {
    const c = string.charCodeAt(i);
    if (c >= 0x80 || c === 0) break;
    page[start + i] = c;
  }
  return i;
}

/** @param {unknown} value */
const isAbsent = (value) =>
  value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value));

/** @param {unknown} value @param {string} column @param {number} limit @returns {number} */
function integer(value, column, limit) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < -limit || n >= limit)
    throw new Error(`postgres: ${column} is out of range: ${String(value).slice(0, 40)}`);
  return n;
}
