// Pure mapping of search documents to RouterRequest records, for the two formats paasmon knows:
// `logsearch` (Logstash-parsed rtr.* fields) and `raw` (the gorouter line in a message field).
import { ConfigError } from '../../../core/errors.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';
import { parseGorouterLine, parseRouterTimestamp } from './gorouter.js';

/**
 * Where each value lives in a document. `extra` is the object holding every `key:"value"` after
 * app_index (logsearch: rtr.extra); `raw` a field that may keep the original line.
 * @typedef {object} FieldNames
 * @property {string} timestamp the time the window filters and sorts on
 * @property {string} sourceType must match "RTR" ('' = no filter)
 * @property {string} appName
 * @property {string} appGuid
 * @property {string} receivedAt
 * @property {string} method
 * @property {string} path
 * @property {string} status
 * @property {string} bytesReceived
 * @property {string} bytesSent
 * @property {string} vcapRequestId
 * @property {string} responseTimeMs
 * @property {string} gorouterTimeMs
 * @property {string} appId
 * @property {string} appIndex
 * @property {string} extra
 * @property {string} message the full gorouter line (raw format)
 * @property {string} raw
 */

/** @type {Readonly<Record<'logsearch' | 'raw', FieldNames>>} */
export const FIELD_PRESETS = Object.freeze({
  logsearch: Object.freeze({
    timestamp: '@timestamp',
    sourceType: '@source.type',
    appName: '@cf.app',
    appGuid: '@cf.app_id',
    receivedAt: 'rtr.timestamp',
    method: 'rtr.verb',
    path: 'rtr.path',
    status: 'rtr.status',
    bytesReceived: 'rtr.request_bytes_received',
    bytesSent: 'rtr.body_bytes_sent',
    vcapRequestId: 'rtr.vcap_request_id',
    responseTimeMs: 'rtr.response_time_ms',
    gorouterTimeMs: 'rtr.gorouter_time_ms',
    appId: 'rtr.app.id',
    appIndex: 'rtr.app.index',
    extra: 'rtr.extra',
    message: '@raw',
    raw: '@raw',
  }),
  raw: Object.freeze({
    timestamp: '@timestamp',
    sourceType: '@source.type',
    appName: '@cf.app',
    appGuid: '@cf.app_id',
    receivedAt: '',
    method: '',
    path: '',
    status: '',
    bytesReceived: '',
    bytesSent: '',
    vcapRequestId: '',
    responseTimeMs: '',
    gorouterTimeMs: '',
    appId: '',
    appIndex: '',
    extra: '',
    message: 'message',
    raw: 'message',
  }),
});

/**
 * The field names for a format, with the user's overrides (ROUTER_LOG_FIELDS) on top.
 * @param {'auto' | 'logsearch' | 'raw'} format @param {Record<string, string>} overrides
 * @returns {FieldNames}
 */
export function fieldNamesFor(format, overrides) {
  // auto reads logsearch fields, or a gorouter line in the raw preset's message field.
  const base =
    format === 'raw'
      ? FIELD_PRESETS.raw
      : format === 'auto'
        ? { ...FIELD_PRESETS.logsearch, message: FIELD_PRESETS.raw.message }
        : FIELD_PRESETS.logsearch;
  for (const key of Object.keys(overrides)) {
    if (!(key in base))
      throw new ConfigError(`ROUTER_LOG_FIELDS has unknown key ${key}; known keys: ${Object.keys(base).join(', ')}`, {
        variable: 'ROUTER_LOG_FIELDS',
      });
  }
  return { ...base, ...overrides };
}

/**
 * A field by dotted path, whether the document nests objects or uses dotted keys.
 * @param {any} source @param {string} path @returns {unknown}
 */
export function fieldOf(source, path) {
  if (!path || source === null || typeof source !== 'object') return undefined;
  if (path in source) return source[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  // Try every split point: {"rtr": {"app.id": ...}} and {"rtr": {"app": {"id": ...}}} both occur.
  for (let i = dot; i >= 0; i = path.indexOf('.', i + 1)) {
    const head = path.slice(0, i);
    if (head in source) {
      const value = fieldOf(source[head], path.slice(i + 1));
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

// Documents are untrusted: only strings and numbers are converted (String() or Number() of an
// object such as {"toString": 0} throws; fast-check found it).

/** @param {unknown} value @returns {string | null} */
const text = (value) => {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' && value !== '' && value !== '-' ? value : null;
};

/** @param {unknown} value @returns {number | null | undefined} null when absent, undefined when malformed */
function number(value) {
  if (value === undefined || value === null || value === '' || value === '-') return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * @typedef {{ fields: FieldNames, format: 'auto' | 'logsearch' | 'raw', correlationField?: string }} MappingOptions
 */

/**
 * @param {any} source a document's _source
 * @param {MappingOptions} options
 * @returns {import('./gorouter.js').ParseResult}
 */
export function mapDocument(source, options) {
  if (!source || typeof source !== 'object') return { ok: false, reason: 'not_object' };
  const { fields, format } = options;
  const parseLine = (/** @type {string} */ line) => {
    const parsed = parseGorouterLine(line, { correlationField: options.correlationField });
    return parsed.ok ? withEnvelope(parsed, source, fields) : parsed;
  };
  if (format === 'raw') {
    const message = fieldOf(source, fields.message);
    return typeof message === 'string' ? parseLine(message) : { ok: false, reason: 'missing_message' };
  }
  // A kept raw line is exact (response_time has microseconds); parsed fields may be whole ms.
  const raw = fieldOf(source, fields.raw);
  if (typeof raw === 'string') {
    const parsed = parseLine(raw);
    if (parsed.ok) return parsed;
  }
  const hasParsedFields =
    fieldOf(source, fields.receivedAt) !== undefined || fieldOf(source, fields.responseTimeMs) !== undefined;
  if (hasParsedFields) return mapParsedFields(source, options);
  if (format === 'auto') {
    const message = fieldOf(source, fields.message);
    if (typeof message === 'string') return parseLine(message);
  }
  return { ok: false, reason: 'unknown_format' };
}

/** @param {any} source @param {MappingOptions} options @returns {import('./gorouter.js').ParseResult} */
function mapParsedFields(source, { fields, correlationField }) {
  const rawTime = fieldOf(source, fields.receivedAt);
  if (rawTime === undefined || rawTime === null) return { ok: false, reason: 'missing_timestamp' };
  const receivedAt =
    typeof rawTime === 'number'
      ? Number.isFinite(new Date(rawTime).getTime())
        ? parseRouterTimestamp(new Date(rawTime).toISOString())
        : null
      : typeof rawTime === 'string'
        ? parseRouterTimestamp(rawTime)
        : null;
  if (!receivedAt) return { ok: false, reason: 'bad_timestamp' };
  const rawResponse = fieldOf(source, fields.responseTimeMs);
  const responseTimeMs = number(rawResponse);
  const gorouterTimeMs = number(fieldOf(source, fields.gorouterTimeMs));
  if (responseTimeMs === undefined || gorouterTimeMs === undefined) return { ok: false, reason: 'bad_duration' };
  const status = number(fieldOf(source, fields.status));
  if (status === undefined || (status !== null && (!Number.isInteger(status) || status < 100 || status > 599)))
    return { ok: false, reason: 'bad_status' };
  const extra = (/** @type {string} */ name) => text(fieldOf(source, `${fields.extra}.${name}`)) ?? undefined;
  const get = (/** @type {string} */ name) =>
    name === 'vcap_request_id' ? (text(fieldOf(source, fields.vcapRequestId)) ?? undefined) : extra(name);
  const appIndex = number(fieldOf(source, fields.appIndex));
  const bytesReceived = number(fieldOf(source, fields.bytesReceived));
  const bytesSent = number(fieldOf(source, fields.bytesSent));
  return {
    ok: true,
    record: {
      kind: 'router_request',
      receivedAt,
      appGuid: (text(fieldOf(source, fields.appId)) ?? text(fieldOf(source, fields.appGuid)))?.toLowerCase() ?? null,
      appName: text(fieldOf(source, fields.appName)),
      appIndex: appIndex ?? null,
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

/**
 * Adds what only the envelope knows (app name, app guid) to a record parsed from a line.
 * @param {{ ok: true, record: import('./gorouter.js').RouterRequest }} parsed
 * @param {any} source
 * @param {FieldNames} fields
 */
function withEnvelope(parsed, source, fields) {
  const record = parsed.record;
  record.appName = record.appName ?? text(fieldOf(source, fields.appName));
  record.appGuid = record.appGuid ?? text(fieldOf(source, fields.appGuid))?.toLowerCase() ?? null;
  return parsed;
}
