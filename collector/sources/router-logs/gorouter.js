// Pure parser of gorouter access-log lines (RTR). Never throws: it returns a record or a reason.
import { wholeSecondsMs } from '../../../core/utc-time.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';

/**
 * @typedef {import('../../../core/types.js').RouterRequest} RouterRequest
 *
 * @typedef {{ ok: true, record: RouterRequest } | { ok: false, reason: string }} ParseResult
 */

/**
 * `cf logs` prefix: `<ts> [RTR/<router index>] OUT `. Other sources ([APP/...], [API/...], older CLIs'
 * [App/0]) are not router lines; an `[RTR/n] OUT` with nothing after it is an empty router message.
 */
const CF_LOGS_PREFIX = /^\s*(\S+)\s+\[([A-Za-z]+)(?:\/[^\]]*)?\]\s+(?:OUT|ERR)(?:\s|$)/;
/** An HTTP method as RFC 9110 allows it (a token): `VERSION-CONTROL` and a lower-case `get` included. */
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEAD = /^(\S+) - \[([^\]]*)\] "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+)(?: |$)/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;
const GOROUTER_LEGACY_TIME =
  /^(\d{2})\/(\d{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*([+-]\d{2}:?\d{2}|Z)$/i;
/** A `key:` of at most 80 characters, matched where the scan is (sticky). */
const KEY = /[A-Za-z_][A-Za-z0-9_-]{0,78}:/y;
/** app_index is stored as an integer (int4): a larger number is no instance index. */
const MOST_APP_INDEX = 2 ** 31 - 1;

/**
 * An instance index as stored: a whole number up to int4's largest, else null.
 * @param {number | null | undefined} value
 */
export const appIndexOf = (value) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MOST_APP_INDEX ? value : null;
/** Seconds as gorouter writes them: digits, then maybe a point and digits. */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** response_time / gorouter_time as the last thing of a line: never so in a whole line (app_id follows). */
const CUT_AFTER_NUMBER = /(?:^| )(?:response_time|gorouter_time):[^ "]*$/;

/**
 * The whole seconds of the last UTC time parsed (`2026-11-21T10:00:00`) and their UTC form: the
 * lines of one page mostly share them. Others are read digit by digit (wholeSecondsMs): a regular
 * expression and Date objects for each time were a large share of an ingest's CPU
 * (bench/ingest.bench.js profile), and in a page sorted by the time a document was written, the times requests came in
 * change their second often (a request that took 2 s comes between ones that took 2 ms).
 */
let lastSecond = { text: '\0', utc: '' };

/**
 * Either timestamp form gorouter writes -> UTC RFC 3339 with microseconds, or null.
 * @param {string} text
 */
export function parseRouterTimestamp(text) {
  const n = text.length;
  // `<whole seconds>.<1 to 9 digits>Z`
  if (n >= 22 && n <= 30 && text[19] === '.' && (text[n - 1] === 'Z' || text[n - 1] === 'z')) {
    if (!text.startsWith(lastSecond.text) && !Number.isNaN(wholeSecondsMs(text)))
      lastSecond = { text: text.slice(0, 19), utc: `${text.slice(0, 10)}T${text.slice(11, 19)}` };
    let digits = text.startsWith(lastSecond.text);
    for (let i = 20; i < n - 1 && digits; i++) digits = text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
    if (digits)
      return `${lastSecond.utc}.${text
        .slice(20, n - 1)
        .padEnd(6, '0')
        .slice(0, 6)}Z`;
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
 * Splits what follows the user agent: positional tokens (addresses) and `key:value` pairs, quoted
 * or not. A quote left open (a truncated line) ends the scan.
 * @param {string} tail
 */
export function scanFields(tail) {
  /** @type {string[]} */
  const positional = [];
  /** @type {Map<string, string>} */
  const fields = new Map();
  let truncated = false;
  let i = 0;
  const n = tail.length;
  const readValue = () => {
    if (tail[i] === '"') {
      // Most values hold no escape: one slice (bench/ingest.bench.js profile).
      const close = tail.indexOf('"', i + 1);
      const value = close < 0 ? '' : tail.slice(i + 1, close);
      if (close >= 0 && !value.includes('\\')) {
        i = close + 1;
        return value;
      }
      let out = '';
      i += 1;
      while (i < n && tail[i] !== '"') {
        if (tail[i] === '\\' && i + 1 < n) i += 1;
        out += tail[i];
        i += 1;
      }
      if (i >= n) {
        truncated = true;
        return null;
      }
      i += 1;
      return out;
    }
    const start = i;
    const space = tail.indexOf(' ', i);
    i = space < 0 ? n : space;
    return tail.slice(start, i);
  };
  while (i < n) {
    while (i < n && tail[i] === ' ') i += 1;
    if (i >= n) break;
    KEY.lastIndex = i;
    const key = KEY.exec(tail);
    if (key) {
      i += key[0].length;
      const value = readValue();
      if (value === null) break;
      fields.set(key[0].slice(0, -1).toLowerCase(), value);
    } else {
      const value = readValue();
      if (value === null) break;
      positional.push(value);
    }
  }
  return { positional, fields, truncated };
}

/** `"-"`, empty or absent -> null. @param {string | undefined} value */
const present = (value) => (value === undefined || value === '-' || value === '' ? null : value);

/** A non-negative integer or null; undefined when present but malformed. @param {string | undefined} value */
function wholeNumber(value) {
  const v = present(value);
  if (v === null) return null;
  return /^\d{1,15}$/.test(v) ? Number(v) : undefined;
}

/**
 * Seconds (as gorouter writes them) -> milliseconds; null when absent, undefined when malformed or negative.
 * @param {string | undefined} value
 */
export function secondsToMs(value) {
  const v = present(value);
  if (v === null) return null;
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
 * @param {string} line a gorouter access-log line, optionally with the `cf logs` prefix
 * @param {{ correlationField?: string }} [options] the extra-header field holding the load generator's id
 *   (e.g. x_correlation_id)
 * @returns {ParseResult}
 */
export function parseGorouterLine(line, options = {}) {
  if (typeof line !== 'string') return { ok: false, reason: 'not_text' };
  let text = line.replace(/\r?\n$/, '');
  const prefix = CF_LOGS_PREFIX.exec(text);
  if (prefix) {
    if (prefix[2].toUpperCase() !== 'RTR') return { ok: false, reason: 'not_rtr' };
    text = text.slice(prefix[0].length);
    if (text.trim() === '') return { ok: false, reason: 'empty_rtr' };
  }
  text = text.trim();
  if (text === '') return { ok: false, reason: 'empty' };
  const head = HEAD.exec(text);
  if (!head) return { ok: false, reason: /^\S+ - \[/.test(text) ? 'truncated' : 'not_gorouter' };
  const receivedAt = parseRouterTimestamp(head[2]);
  if (!receivedAt) return { ok: false, reason: 'bad_timestamp' };
  // Nothing written to the client (it gave up, the backend never answered): gorouter writes `"-"`.
  const status = wholeNumber(head[4] === '"-"' ? '-' : head[4]);
  const bytesReceived = wholeNumber(head[5]);
  const bytesSent = wholeNumber(head[6]);
  if (status === undefined || (status !== null && (status < 100 || status > 599)))
    return { ok: false, reason: 'bad_status' };
  if (bytesReceived === undefined || bytesSent === undefined) return { ok: false, reason: 'bad_bytes' };

  // Referer and user agent are quoted; they may be missing from a truncated line.
  const rest = text.slice(head[0].length);
  // A line cut right after a number would give a shortened number (bytes_sent 1099511 of
  // 1099511627770, response_time 0.02 of 0.025501): in whole lines, something always follows them.
  if (rest === '' || CUT_AFTER_NUMBER.test(rest)) return { ok: false, reason: 'truncated' };
  const { fields } = scanFields(rest);
  const responseTimeMs = secondsToMs(fields.get('response_time'));
  const gorouterTimeMs = secondsToMs(fields.get('gorouter_time'));
  if (responseTimeMs === undefined || gorouterTimeMs === undefined) return { ok: false, reason: 'bad_duration' };
  const appIndex = wholeNumber(fields.get('app_index'));

  const request = head[3].split(' ');
  const method = request.length >= 2 && METHOD_TOKEN.test(request[0]) ? request[0] : null;
  const path = request.length >= 2 ? request.slice(1, request.length >= 3 ? -1 : undefined).join(' ') : null;
  const vcapRequestId = present(fields.get('vcap_request_id'))?.toLowerCase() ?? null;
  return {
    ok: true,
    record: {
      kind: 'router_request',
      receivedAt,
      appGuid: present(fields.get('app_id'))?.toLowerCase() ?? null,
      appName: null,
      appIndex: appIndexOf(appIndex),
      instanceId: present(fields.get('instance_id')),
      method,
      path,
      status,
      responseTimeMs,
      gorouterTimeMs,
      responseTimeResolutionMs: null,
      bytesReceived,
      bytesSent,
      vcapRequestId,
      correlationId: correlationIdOf((name) => present(fields.get(name)) ?? undefined, options.correlationField),
      routerError: present(fields.get('x_cf_routererror')),
      traceId: normalizeTraceId(
        present(fields.get('x_b3_traceid')) ??
          present(fields.get('traceparent')) ??
          present(fields.get('b3')) ??
          undefined,
      ),
    },
  };
}
