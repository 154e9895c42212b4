// Pure parser of gorouter access-log lines (RTR). Never throws: it returns a record or a reason.
import { LINE } from '../../../core/reason-codes.js';
import { wholeSecondsMs } from '../../../core/utc-time.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';
import { endsInDuration, isDigits, mayHavePrefix, readHead, scanWanted, wantedKeys } from './line-scan.js';

export { scanFields } from './line-scan.js';

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
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;
const GOROUTER_LEGACY_TIME =
  /^(\d{2})\/(\d{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*([+-]\d{2}:?\d{2}|Z)$/i;
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

/**
 * The whole seconds of the last UTC time parsed (`2026-11-21T10:00:00`) and their UTC form: the
 * lines of one page mostly share them. Others are read digit by digit (wholeSecondsMs), cheaper than
 * a regular expression and Date objects per time (bench/ingest.bench.js): in a page sorted by the
 * time a document was written, the times requests came in change their second often (a slow
 * request comes between fast ones).
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

/** `"-"`, empty or absent -> null. @param {string | undefined} value */
const present = (value) => (value === undefined || value === '-' || value === '' ? null : value);

/** A non-negative integer or null; undefined when present but malformed. @param {string | undefined} value */
function wholeNumber(value) {
  const v = present(value);
  if (v === null) return null;
  return isDigits(v) ? Number(v) : undefined;
}

/**
 * Seconds (as gorouter writes them) -> milliseconds; null when absent, undefined when malformed or negative.
 * @param {string | undefined} value
 */
export function secondsToMs(value) {
  const v = present(value);
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

/** The fields a record is made of, besides the correlation field. */
const RECORD_FIELDS = [
  'response_time',
  'gorouter_time',
  'app_index',
  'app_id',
  'instance_id',
  'vcap_request_id',
  'x_cf_routererror',
  'x_b3_traceid',
  'traceparent',
  'b3',
];
/**
 * The record's keys, compiled for scanWanted, and a lookup of a key's value in what it returns.
 * @typedef {{ keys: import('./line-scan.js').WantedKeys, slot: (name: string) => number }} RecordKeys
 */
/** @type {Map<string, RecordKeys>} by correlation field (one or two per process) */
const keysByCorrelation = new Map();
/** The last correlation field's keys: one per process, as a rule. */
let lastKeys = { correlationField: '\0', wanted: /** @type {RecordKeys | undefined} */ (undefined) };
/** @param {string | undefined} correlationField @returns {RecordKeys} */
function recordKeys(correlationField = '') {
  if (lastKeys.correlationField === correlationField && lastKeys.wanted) return lastKeys.wanted;
  let wanted = keysByCorrelation.get(correlationField);
  if (!wanted) {
    if (keysByCorrelation.size > 100) keysByCorrelation.clear();
    const keys = wantedKeys([...RECORD_FIELDS, correlationField.toLowerCase()]);
    wanted = { keys, slot: (name) => keys.slotOf.get(name) ?? -1 };
    keysByCorrelation.set(correlationField, wanted);
  }
  lastKeys = { correlationField, wanted };
  return wanted;
}
/** The slots of RECORD_FIELDS, in its order (wantedKeys keeps the first slot of a key). */
const [
  RESPONSE_TIME,
  GOROUTER_TIME,
  APP_INDEX,
  APP_ID,
  INSTANCE_ID,
  VCAP_REQUEST_ID,
  ROUTER_ERROR,
  X_B3_TRACEID,
  TRACEPARENT,
  B3,
] = RECORD_FIELDS.map((_, slot) => slot);

/**
 * @param {string} line a gorouter access-log line, optionally with the `cf logs` prefix
 * @param {{ correlationField?: string }} [options] the extra-header field holding the load generator's id
 *   (e.g. x_correlation_id)
 * @returns {ParseResult}
 */
export function parseGorouterLine(line, options = {}) {
  if (typeof line !== 'string') return { ok: false, reason: LINE.NOT_TEXT };
  let text = line;
  if (text.endsWith('\n')) text = text.slice(0, text.endsWith('\r\n') ? -2 : -1);
  const prefix = mayHavePrefix(text) ? CF_LOGS_PREFIX.exec(text) : null;
  if (prefix) {
    if (prefix[2].toUpperCase() !== 'RTR') return { ok: false, reason: LINE.NOT_RTR };
    text = text.slice(prefix[0].length);
    if (text.trim() === '') return { ok: false, reason: LINE.EMPTY_RTR };
  }
  text = text.trim();
  if (text === '') return { ok: false, reason: LINE.EMPTY };
  const head = readHead(text);
  if (typeof head === 'string') return { ok: false, reason: head };
  const receivedAt = parseRouterTimestamp(head.time);
  if (!receivedAt) return { ok: false, reason: LINE.BAD_TIMESTAMP };
  // Nothing written to the client (it gave up, the backend never answered): gorouter writes `"-"`.
  const status = wholeNumber(head.status === '"-"' ? '-' : head.status);
  const bytesReceived = wholeNumber(head.bytesReceived);
  const bytesSent = wholeNumber(head.bytesSent);
  if (status === undefined || (status !== null && (status < 100 || status > 599)))
    return { ok: false, reason: LINE.BAD_STATUS };
  if (bytesReceived === undefined || bytesSent === undefined) return { ok: false, reason: LINE.BAD_BYTES };

  // Referer and user agent are quoted; they may be missing from a truncated line.
  const rest = text.slice(head.end);
  // A line cut right after a number would give a shortened number (bytes_sent 1099511 of
  // 1099511627770, response_time 0.02 of 0.025501): in whole lines, something always follows them.
  if (rest === '' || endsInDuration(rest)) return { ok: false, reason: LINE.TRUNCATED };
  const wanted = recordKeys(options.correlationField);
  const fields = scanWanted(text, wanted.keys, head.end);
  const responseTimeMs = secondsToMs(fields[RESPONSE_TIME]);
  const gorouterTimeMs = secondsToMs(fields[GOROUTER_TIME]);
  if (responseTimeMs === undefined || gorouterTimeMs === undefined) return { ok: false, reason: LINE.BAD_DURATION };
  const appIndex = wholeNumber(fields[APP_INDEX]);

  // `METHOD path HTTP/x`: the path is what lies between the first space and the last (a path may hold spaces).
  const { request } = head;
  const firstSpace = request.indexOf(' ');
  const lastSpace = request.lastIndexOf(' ');
  const method =
    firstSpace >= 0 && METHOD_TOKEN.test(request.slice(0, firstSpace)) ? request.slice(0, firstSpace) : null;
  const path =
    firstSpace < 0 ? null : request.slice(firstSpace + 1, lastSpace > firstSpace ? lastSpace : request.length);
  const vcapRequestId = present(fields[VCAP_REQUEST_ID])?.toLowerCase() ?? null;
  return {
    ok: true,
    record: {
      kind: 'router_request',
      receivedAt,
      appGuid: present(fields[APP_ID])?.toLowerCase() ?? null,
      appName: null,
      appIndex: appIndexOf(appIndex),
      instanceId: present(fields[INSTANCE_ID]),
      method,
      path,
      status,
      responseTimeMs,
      gorouterTimeMs,
      responseTimeResolutionMs: null,
      bytesReceived,
      bytesSent,
      vcapRequestId,
      correlationId: correlationIdOf(
        (name) => present(fields[wanted.slot(name)]) ?? undefined,
        options.correlationField,
      ),
      routerError: present(fields[ROUTER_ERROR]),
      traceId: normalizeTraceId(
        present(fields[X_B3_TRACEID]) ?? present(fields[TRACEPARENT]) ?? present(fields[B3]) ?? undefined,
      ),
    },
  };
}
