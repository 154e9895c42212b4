// Pure parser of gorouter access-log lines (RTR). Never throws: it returns a record or a reason.
import { LINE } from '../../../core/reason-codes.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';
import { unitsOf } from './line-fields.js';
import { parseRouterTimestamp, secondsToMs } from './router-times.js';
import { endsInDuration, isDigits, mayHavePrefix, readHead, scanWanted, wantedKeys } from './line-scan.js';

export { scanFields } from './line-scan.js';
export { parseRouterTimestamp, secondsToMs } from './router-times.js';

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
/** app_index is stored as an integer (int4): a larger number is no instance index. */
const MOST_APP_INDEX = 2 ** 31 - 1;

/**
 * An instance index as stored: a whole number up to int4's largest, else null.
 * @param {number | null | undefined} value
 */
export const appIndexOf = (value) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MOST_APP_INDEX ? value : null;

/** `"-"`, empty or absent -> null. @param {string | undefined} value */
const present = (value) => (value === undefined || value === '-' || value === '' ? null : value);

/** A non-negative integer or null; undefined when present but malformed. @param {string | undefined} value */
function wholeNumber(value) {
  const v = present(value);
  if (v === null) return null;
  return isDigits(v) ? Number(v) : undefined;
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
 * @typedef {{ keys: import('./line-fields.js').WantedKeys, slot: (name: string) => number }} RecordKeys
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
  const last = text.length - 1;
  if (text.charCodeAt(last) === 10) text = text.slice(0, text.charCodeAt(last - 1) === 13 ? -2 : -1);
  let units = unitsOf(text);
  const prefix = mayHavePrefix(text, units) ? CF_LOGS_PREFIX.exec(text) : null;
  if (prefix) {
    if (prefix[2].toUpperCase() !== 'RTR') return { ok: false, reason: LINE.NOT_RTR };
    text = text.slice(prefix[0].length);
    if (text.trim() === '') return { ok: false, reason: LINE.EMPTY_RTR };
  }
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: LINE.EMPTY };
  // The units are the text's own unless the prefix or white space was cut off (few lines).
  if (trimmed !== text || prefix) units = unitsOf(trimmed);
  text = trimmed;
  const head = readHead(text, units);
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
  // A line cut right after a number would give a shortened number (bytes_sent 1099511 of
  // 1099511627770, response_time 0.02 of 0.025501): in whole lines, something always follows them.
  if (head.end === text.length || endsInDuration(text.slice(head.end))) return { ok: false, reason: LINE.TRUNCATED };
  const wanted = recordKeys(options.correlationField);
  const fields = scanWanted(text, wanted.keys, head.end, units);
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
