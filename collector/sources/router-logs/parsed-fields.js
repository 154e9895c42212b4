// A search document whose pipeline already parsed the gorouter line into fields (logsearch's rtr.*),
// as a RouterRequest.
import { LINE } from '../../../core/reason-codes.js';
import { correlationIdOf, normalizeTraceId } from '../gorouter/correlation-ids.js';
import { compiledFields, extraPath, number, text, valueAt, valueOf } from './field-values.js';
import { appIndexOf, parseRouterTimestamp } from '../gorouter/parse.js';

/**
 * The extra-field paths every record reads, compiled once per field names (no lookup by name per document).
 * @typedef {{ instanceId: CompiledPath, routerError: CompiledPath, b3TraceId: CompiledPath,
 *   traceparent: CompiledPath, b3: CompiledPath }} ExtraPaths
 * @typedef {import('./field-values.js').CompiledPath} CompiledPath
 * @type {WeakMap<import('./document-fields.js').FieldNames, ExtraPaths>}
 */
const extraPathsByFields = new WeakMap();

/** @param {import('./document-fields.js').FieldNames} fields @returns {ExtraPaths} */
function extraPathsOf(fields) {
  let paths = extraPathsByFields.get(fields);
  if (!paths) {
    const at = (/** @type {string} */ name) => extraPath(fields.extra, name);
    paths = {
      instanceId: at('instance_id'),
      routerError: at('x_cf_routererror'),
      b3TraceId: at('x_b3_traceid'),
      traceparent: at('traceparent'),
      b3: at('b3'),
    };
    extraPathsByFields.set(fields, paths);
  }
  return paths;
}

/**
 * The record from the parsed fields, or the reason there is none (timestamp, durations, status, bytes).
 * @param {any} source a document's _source
 * @param {import('./document-fields.js').MappingOptions} options
 * @param {unknown} [rawTime] the value at the receivedAt field, when the caller read it already
 * @returns {import('../gorouter/parse.js').ParseResult}
 */
export function mapParsedFields(source, { fields, correlationField }, rawTime = undefined) {
  const at = compiledFields(fields);
  if (rawTime === undefined) rawTime = valueOf(source, at.receivedAt);
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
  const rawResponse = valueOf(source, at.responseTimeMs);
  const responseTimeMs = number(rawResponse);
  const gorouterTimeMs = number(valueOf(source, at.gorouterTimeMs));
  if (responseTimeMs === undefined || gorouterTimeMs === undefined) return { ok: false, reason: LINE.BAD_DURATION };
  const status = number(valueOf(source, at.status));
  if (status === undefined || (status !== null && (!Number.isInteger(status) || status < 100 || status > 599)))
    return { ok: false, reason: LINE.BAD_STATUS };
  const extras = extraPathsOf(fields);
  const extraAt = (/** @type {CompiledPath} */ path) => text(valueAt(source, path)) ?? undefined;
  const extra = (/** @type {string} */ name) => extraAt(extraPath(fields.extra, name));
  const get = (/** @type {string} */ name) =>
    name === 'vcap_request_id' ? (text(valueOf(source, at.vcapRequestId)) ?? undefined) : extra(name);
  const appIndex = number(valueOf(source, at.appIndex));
  const bytesReceived = number(valueOf(source, at.bytesReceived));
  const bytesSent = number(valueOf(source, at.bytesSent));
  // Byte counts are stored as bigint: a fraction, or more than a double holds exactly, is no count.
  for (const bytes of [bytesReceived, bytesSent])
    if (typeof bytes === 'number' && !Number.isSafeInteger(bytes)) return { ok: false, reason: LINE.BAD_BYTES };
  return {
    ok: true,
    record: {
      kind: 'router_request',
      receivedAt,
      appGuid: (text(valueOf(source, at.appId)) ?? text(valueOf(source, at.appGuid)))?.toLowerCase() ?? null,
      appName: text(valueOf(source, at.appName)),
      appIndex: appIndexOf(appIndex),
      instanceId: extraAt(extras.instanceId) ?? null,
      method: text(valueOf(source, at.method)),
      path: text(valueOf(source, at.path)),
      status,
      responseTimeMs,
      gorouterTimeMs,
      // A whole number in the index may be a rounded float (rtr.response_time_ms is mapped as long).
      responseTimeResolutionMs: typeof rawResponse === 'number' && Number.isInteger(rawResponse) ? 1 : null,
      bytesReceived: bytesReceived ?? null,
      bytesSent: bytesSent ?? null,
      vcapRequestId: text(valueOf(source, at.vcapRequestId))?.toLowerCase() ?? null,
      correlationId: correlationIdOf(get, correlationField),
      routerError: extraAt(extras.routerError) ?? null,
      traceId: normalizeTraceId(extraAt(extras.b3TraceId) ?? extraAt(extras.traceparent) ?? extraAt(extras.b3)),
    },
  };
}
