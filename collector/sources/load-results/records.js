// What every load-tool format becomes: one loadgen_request record per request, with the tool's
// own classification of failures mapped onto the load generator's (timeout, refused, reset).
import crypto from 'node:crypto';
import { normalizeId } from '../../../core/ids.js';
import { REQUEST_ERROR } from '../../../core/reason-codes.js';

/**
 * One request as a load tool reported it, before it gets its run.
 * @typedef {object} ImportedRequest
 * @property {'loadgen_request'} kind
 * @property {string | null} correlationId the id the tool sent (lower-case UUID form when it is one);
 *   rows without one get a derived key (rowKey) when they are paged
 * @property {number} startedAtMs epoch ms, with fractions, when the request was sent
 * @property {string} [startedAt] the same as UTC RFC 3339 with microseconds, set when paged
 * @property {number} durationMs
 * @property {number} status 0 when no response arrived
 * @property {string | null} error null when the tool counted the request as a success
 * @property {string} tool
 * @property {string | null} method
 * @property {string | null} url the URL, or the tool's label for the request
 * @property {number | null} bytes response bytes received
 * @property {number} [runId] set when stored
 * @property {string} [worker] set when stored
 */

/**
 * A parsed line: a request, the reason it could not be read, or null for a line that holds no
 * request (a header, another metric's point).
 * @typedef {ImportedRequest | string | null} LineResult
 */

/**
 * The load generator's error kinds (loadgen/generate.js errorKind) from a tool's transport-error
 * text; other transport errors are `other`.
 * @param {string} text
 */
export function transportErrorKind(text) {
  if (/time[d ]?\s*out|timeout|deadline exceeded/i.test(text)) return REQUEST_ERROR.TIMEOUT;
  if (/refused|connect(ion)? ?(exception|failed|error)|no route to host|ConnectException/i.test(text))
    return REQUEST_ERROR.REFUSED;
  if (/reset|broken pipe|EPIPE|connection (was )?(closed|aborted)|EOF|NoHttpResponse/i.test(text))
    return REQUEST_ERROR.RESET;
  return REQUEST_ERROR.OTHER;
}

/**
 * The error of a failed request: the transport kind when no response arrived, else the tool's
 * message (or `status N` without one); null for a success.
 * @param {boolean} ok @param {number} status @param {string | null | undefined} message
 */
export function errorOf(ok, status, message) {
  if (ok) return null;
  if (!status) return transportErrorKind(message ?? '');
  return message ? message.slice(0, 500) : `status ${status}`;
}

/**
 * @param {Omit<ImportedRequest, 'kind' | 'correlationId'> & { correlationId?: string | null }} fields
 * @returns {ImportedRequest}
 */
export function request(fields) {
  return { kind: 'loadgen_request', ...fields, correlationId: normalizeId(fields.correlationId ?? null) };
}

/** The last second isoMicros wrote, and its text up to the fraction: requests come in time order. */
let isoSecond = Number.NaN;
let isoPrefix = '';

/** Epoch ms (with fractions) as UTC RFC 3339 with six fraction digits, the form COPY takes fastest. */
export function isoMicros(/** @type {number} */ ms) {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  const at = whole + Math.floor(micros / 1000);
  const second = Math.floor(at / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoSecond = second;
  }
  return `${isoPrefix}${String((at - second * 1000) * 1000 + (micros % 1000)).padStart(6, '0')}Z`;
}

/**
 * The key of a request the tool gave no id: `row-<n>-<digest>`, n its place among the file's
 * requests, digest 16 hex digits of SHA-1 over the tool and its values. The same file gives the
 * same keys (re-importing adds nothing, an appended file keeps its earlier keys); two files whose
 * n-th rows differ get different keys; no UUID, so it never matches a router record.
 * @param {ImportedRequest} r @param {number} ordinal
 */
export function rowKey(r, ordinal) {
  const digest = crypto
    .createHash('sha1')
    .update(`${r.tool}|${r.startedAtMs}|${r.durationMs}|${r.status}|${r.error}|${r.method}|${r.url}|${r.bytes}`)
    .digest('hex')
    .slice(0, 16);
  return `row-${ordinal}-${digest}`;
}

/** Keys derived by rowKey start with this: a run whose keys all do recorded no ids. */
export const DERIVED_KEY_PREFIX = 'row-';

/** @param {string | undefined | null} text @returns {number} NaN when not a finite number */
export function num(text) {
  if (text === undefined || text === null || String(text).trim() === '') return Number.NaN;
  const n = Number(text);
  return Number.isFinite(n) ? n : Number.NaN;
}
