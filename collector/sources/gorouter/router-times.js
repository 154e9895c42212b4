// Times and durations as gorouter writes them, read exactly: a request's time to the microsecond in
// UTC, seconds to the millisecond digit.
import { wholeSecondsMs } from '../../../core/utc-time.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;
const GOROUTER_LEGACY_TIME =
  /^(\d{2})\/(\d{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*([+-]\d{2}:?\d{2}|Z)$/i;
/** Seconds as gorouter writes them: digits, then maybe a point and digits. */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * The whole seconds of the last UTC time parsed (`2026-11-21T10:00:00`) and their UTC form: the
 * lines of one page mostly share them. Others are read digit by digit (wholeSecondsMs), cheaper than
 * a regular expression and Date objects per time (bench/ingest.bench.js): in a page sorted by the
 * time a document was written, the times requests came in change their second often (a slow
 * request comes between fast ones).
 */
let lastSecond = { text: '\0', utc: '', same: false };

/**
 * Either timestamp form gorouter writes -> UTC RFC 3339 with microseconds, or null.
 * @param {string} text
 */
export function parseRouterTimestamp(text) {
  const n = text.length;
  // `<whole seconds>.<1 to 9 digits>Z`
  if (n >= 22 && n <= 30 && text.charCodeAt(19) === 46 && (text.charCodeAt(n - 1) | 32) === 122) {
    let known = text.startsWith(lastSecond.text);
    if (!known && !Number.isNaN(wholeSecondsMs(text))) {
      const utc = `${text.slice(0, 10)}T${text.slice(11, 19)}`;
      lastSecond = { text: text.slice(0, 19), utc, same: utc === text.slice(0, 19) };
      known = true;
    }
    let digits = known;
    for (let i = 20; i < n - 1 && digits; i++) {
      const c = text.charCodeAt(i);
      digits = c >= 48 && c <= 57;
    }
    if (digits) {
      // Most times are UTC in the stored form already, with six digits or more: one slice.
      if (lastSecond.same && n >= 27) return n === 27 && text.charCodeAt(26) === 90 ? text : `${text.slice(0, 26)}Z`;
      return `${lastSecond.utc}.${text
        .slice(20, n - 1)
        .padEnd(6, '0')
        .slice(0, 6)}Z`;
    }
  }
  return parseTimestamp(text);
}

/** @param {string} text */
function parseTimestamp(text) {
  let parts = RFC3339.exec(text.trim());
  /** @type {[number, number, number, number, number, number, string, string]} */
  let fields;
  if (parts) {
    fields = [
      Number(parts[1]),
      Number(parts[2]),
      Number(parts[3]),
      Number(parts[4]),
      Number(parts[5]),
      Number(parts[6]),
      parts[7] ?? '',
      parts[8],
    ];
  } else {
    parts = GOROUTER_LEGACY_TIME.exec(text.trim());
    if (!parts) return null;
    fields = [
      Number(parts[3]),
      Number(parts[2]),
      Number(parts[1]),
      Number(parts[4]),
      Number(parts[5]),
      Number(parts[6]),
      parts[7] ?? '',
      parts[8],
    ];
  }
  const [year, month, day, hour, minute, second, fraction, zone] = fields;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return null;
  const utcMs = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utcMs);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const instant = new Date(utcMs - offsetMinutes * 60_000);
  if (Number.isNaN(instant.getTime())) return null;
  const micros = fraction.padEnd(6, '0').slice(0, 6);
  return `${instant.toISOString().slice(0, 19)}.${micros}Z`;
}

/**
 * Seconds (as gorouter writes them) -> milliseconds; null when absent, undefined when malformed or negative.
 * @param {string | undefined} value
 */
export function secondsToMs(value) {
  const v = value === undefined || value === '-' || value === '' ? null : value;
  if (v === null) return null;
  const digits = decimalMs(v);
  if (digits !== undefined) return digits;
  // Shift the decimal point in the text: 0.025501 s is 25.501 ms exactly, not 25.500999999999998.
  const decimal = DECIMAL.exec(v);
  let ms;
  if (decimal) {
    const [, whole, fraction = ''] = decimal;
    ms = Number(`${whole}${fraction.padEnd(3, '0').slice(0, 3)}.${fraction.slice(3) || '0'}`);
  } else {
    if (!/^\d+(\.\d+)?e[+-]?\d+$/i.test(v)) return undefined;
    ms = Number(v) * 1000;
  }
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * `\d+(\.\d+)?` seconds of at most 15 digits as milliseconds, read digit by digit; else undefined.
 * The digits are an exact integer and so is a power of ten: their product or quotient is the
 * decimal value rounded once, as Number() of the shifted text gives it.
 * @param {string} text
 */
function decimalMs(text) {
  const n = text.length;
  let point = -1;
  let digits = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && point < 0 && i > 0 && i < n - 1) point = i;
    else if (c >= 48 && c <= 57) digits = digits * 10 + (c - 48);
    else return undefined;
  }
  if (n - (point < 0 ? 0 : 1) > 15) return undefined;
  const fraction = point < 0 ? 0 : n - point - 1;
  return fraction <= 3 ? digits * 10 ** (3 - fraction) : digits / 10 ** (fraction - 3);
}
