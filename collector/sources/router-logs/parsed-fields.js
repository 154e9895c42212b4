// A search document whose pipeline already parsed the gorouter line into fields (logsearch's rtr.*),
// as a RouterRequest.
import { LINE } from '../../../core/reason-codes.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';
import { extraField, fieldOf, number, text } from './field-values.js';
import { appIndexOf, parseRouterTimestamp } from './gorouter.js';

/**
 * The record from the parsed fields, or the reason there is none (timestamp, durations, status, bytes).
 * @param {any} source a document's _source
 * @param {import('./document-fields.js').MappingOptions} options
 * @returns {import('./gorouter.js').ParseResult}
 */
export function mapParsedFields(source, { fields, correlationField }) {
  const rawTime = fieldOf(source, fields.receivedAt);
  if (rawTime === undefined || rawTime === null) return { ok: false, reason: LINE.MISSING_TIMESTAMP };
  const receivedAt =
    typeof rawTime === 'number'
      ? Number.isFinite(new Date(rawTime).getTime())
        ? parseRouterTimestamp(new Date(rawTime).toISOString())
        : null
      : typeof rawTime === 'string'
        ? parseRouterTimestamp(rawTime)
        : null;
  if (!receivedAt) return { ok: false, reason: LINE.BAD_TIMESTAMP };
  const rawResponse = fieldOf(source, fields.responseTimeMs);
  const responseTimeMs = number(rawResponse);
  const gorouterTimeMs = number(fieldOf(source, fields.gorouterTimeMs));
  if (responseTimeMs === undefined || gorouterTimeMs === undefined) return { ok: false, reason: LINE.BAD_DURATION };
  const status = number(fieldOf(source, fields.status));
  if (status === undefined || (status !== null && (!Number.isInteger(status) || status < 100 || status > 599)))
    return { ok: false, reason: LINE.BAD_STATUS };
  const extra = (/** @type {string} */ name) => text(extraField(source, fields.extra, name)) ?? undefined;
  const get = (/** @type {string} */ name) =>
    name === 'vcap_request_id' ? (text(fieldOf(source, fields.vcapRequestId)) ?? undefined) : extra(name);
  const appIndex = number(fieldOf(source, fields.appIndex));
  const bytesReceived = number(fieldOf(source, fields.bytesReceived));
  const bytesSent = number(fieldOf(source, fields.bytesSent));
  // Byte counts are stored as bigint: a fraction, or more than a double holds exactly, is no count.
  for (const bytes of [bytesReceived, bytesSent])
    if (typeof bytes === 'number' && !Number.isSafeInteger(bytes)) return { ok: false, reason: LINE.BAD_BYTES };
  return {
    ok: true,
    record: {
      kind: 'router_request',
      receivedAt,
      appGuid: (text(fieldOf(source, fields.appId)) ?? text(fieldOf(source, fields.appGuid)))?.toLowerCase() ?? null,
      appName: text(fieldOf(source, fields.appName)),
      appIndex: appIndexOf(appIndex),
      instanceId: extra('instance_id') ?? null,
      method: text(fieldOf(source, fields.method)),
      path: text(fieldOf(source, fields.path)),
      status,
      responseTimeMs,
      gorouterTimeMs,
      // A whole number in the index may be a rounded float (rtr.response_time_ms is mapped as long).
      responseTimeResolutionMs: typeof rawResponse === 'number' && Number.isInteger(rawResponse) ? 1 : null,
      bytesReceived: bytesReceived ?? null,
      bytesSent: bytesSent ?? null,
      vcapRequestId: text(fieldOf(source, fields.vcapRequestId))?.toLowerCase() ?? null,
      correlationId: correlationIdOf(get, correlationField),
      routerError: extra('x_cf_routererror') ?? null,
      traceId: normalizeTraceId(extra('x_b3_traceid') ?? extra('traceparent') ?? extra('b3')),
    },
  };
}
