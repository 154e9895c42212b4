// Records as the tuples of a binary-format COPY (PostgreSQL "COPY", File Formats), for every record
// kind, driven by the typed table specs of tables.js: each field is its length in 4 bytes (-1 for
// NULL), then the column type's binary form. Parsing binary costs PostgreSQL far less than text
// (timestamps above all), and writing it costs no escape pass.
import { digitsAt, wholeSecondsMs } from '../../core/utc-time.js';
import { cleanedText } from './clean-text.js';

/** @typedef {'text' | 'int4' | 'int8' | 'float8' | 'timestamptz'} ColumnType */
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
  let cleaned = 0;
  let rowCleaned = false;
  const toTime = timestampEncoder();
  /** @param {number} bytes */
  const room = (bytes) => {
    if (page.length - at >= bytes) return;
    const bigger = Buffer.allocUnsafeSlow(2 * page.length + bytes);
    page.copy(bigger, 0, 0, at);
    page = bigger;
    view = new DataView(page.buffer, page.byteOffset, page.length);
  };
  /** An integer as 8 bytes, exact for |value| < 2^53. @param {number} value */
  const int64 = (value) => {
    const high = Math.floor(value / 2 ** 32);
    view.setInt32(at, high);
    view.setUint32(at + 4, value - high * 2 ** 32);
    at += 8;
  };
  /** @type {Record<string, (value: any, column: string) => void>} each after room() for its fixed size */
  const fixed = {
    int4: (value, column) => (view.setInt32(at, 4), view.setInt32(at + 4, integer(value, column, 2 ** 31)), (at += 8)),
    int8: (value, column) => (view.setInt32(at, 8), (at += 4), int64(integer(value, column, 2 ** 53))),
    float8: (value) => (view.setInt32(at, 8), view.setFloat64(at + 4, Number(value)), (at += 12)),
    timestamptz: (value, column) => (view.setInt32(at, 8), (at += 4), int64(toTime(value, column))),
  };
  /** @param {unknown} value */
  const text = (value) => {
    let string = String(value);
    const n = string.length;
    // At most 3 bytes of UTF-8 per UTF-16 unit (cleaning keeps the count of units).
    room(4 + 3 * n);
    const start = at + 4;
    const i = asciiPrefix(page, start, string);
    if (i < n) {
      // Only text that is not plain ASCII without 0x00 is looked at for cleaning.
      const clean = cleanedText(string);
      if (clean !== undefined) {
        string = clean;
        if (!rowCleaned) cleaned += 1;
        rowCleaned = true;
      }
    }
    const bytes = i === n ? n : page.write(string, start, 'utf8');
    view.setInt32(at, bytes);
    at = start + bytes;
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
      if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value)))
        return (room(4), view.setInt32(at, -1), (at += 4), undefined);
      if (type === 'text') return text(value);
      const write = fixed[type];
      if (!write) throw new Error(`postgres: no binary form for ${type}`);
      room(12);
      write(value, column);
    },
    /** @returns {import('../../core/types.js').EncodedRows} */
    done: () => ({ data: page.subarray(0, at), rows, cleaned }),
  };
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

/** @param {unknown} value @param {string} column @param {number} limit @returns {number} */
function integer(value, column, limit) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < -limit || n >= limit)
    throw new Error(`postgres: ${column} is out of range: ${String(value).slice(0, 40)}`);
  return n;
}
