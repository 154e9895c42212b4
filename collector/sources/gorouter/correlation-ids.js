// Correlation ids: the load generator sends one 128-bit id per request in several headers; the
// router log keeps some of them. All are brought to lower-case UUID form (core/ids.js) before matching.

import { normalizeId } from '../../../core/ids.js';

const HEX32 = /^[0-9a-f]{32}$/;
/** A 64-bit B3 trace id, as routers of 2019-2021 logged it. */
const HEX16 = /^[0-9a-f]{16}$/;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;

/**
 * The 32-hex trace id of a B3 trace id, a `b3` single header or a W3C traceparent; null otherwise.
 * A 64-bit B3 id (16 hex) is left-padded with zeros to 128 bits, as B3 and OpenTelemetry's B3
 * propagator read it, so every stored trace id has one form.
 * @param {string | undefined} value
 */
export function normalizeTraceId(value) {
  if (!value) return null;
  // Most routers log 32 lower-case hex digits: taken as they are.
  if (value.length === 32 && HEX32.test(value)) return value;
  const v = value.trim().toLowerCase();
  const traceparent = TRACEPARENT.exec(v);
  if (traceparent) return traceparent[1];
  const first = v.split('-')[0];
  if (HEX32.test(first)) return first;
  if (HEX16.test(first)) return first.padStart(32, '0');
  return null;
}

export { normalizeId };

/**
 * The log field gorouter uses for an extra header: lower-cased, `-` as `_` (X-Correlation-Id -> x_correlation_id).
 * @param {string} header
 */
export function headerLogField(header) {
  return header.trim().toLowerCase().replace(/-/g, '_');
}

/**
 * The request's correlation id, from (in order) the configured extra-header field,
 * vcap_request_id, x_b3_traceid, traceparent.
 * @param {(field: string) => string | undefined} get a field of the log record, undefined when absent or "-"
 * @param {string} [correlationField]
 */
export function correlationIdOf(get, correlationField) {
  // normalizeId gives null or a non-empty id.
  const configured = correlationField ? normalizeId(get(correlationField)) : null;
  return (
    configured ??
    normalizeId(get('vcap_request_id')) ??
    normalizeId(get('x_b3_traceid')) ??
    normalizeId(get('traceparent'))
  );
}
