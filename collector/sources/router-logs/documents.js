// Pure mapping of search documents to RouterRequest records: `logsearch` (Logstash-parsed rtr.*
// fields), `raw` (the gorouter line in one message field) and `auto` (either, the line wherever
// pipelines keep it).
import { ConfigError } from '../../../core/errors.js';
import { correlationIdOf, normalizeTraceId } from './correlation-ids.js';
import { appIndexOf, parseGorouterLine, parseRouterTimestamp } from './gorouter.js';

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
  // auto reads logsearch fields, or a gorouter line in any of LINE_FIELDS (message first of them).
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
 * A dotted path, split once: the whole path as a key, then each way to split it at a dot (a head
 * key and the rest).
 * @typedef {{ path: string, splits: Array<[head: string, rest: CompiledPath]> }} CompiledPath
 */

/** @type {Map<string, CompiledPath>} the configured paths, split once (bench/ingest.bench.js profile) */
const compiledPaths = new Map();
/** Paths come from the configuration and a few extra-field names; a bound all the same. */
const MOST_COMPILED_PATHS = 10_000;

/** @param {string} path @returns {CompiledPath} */
function compilePath(path) {
  let compiled = compiledPaths.get(path);
  if (compiled) return compiled;
  /** @type {CompiledPath['splits']} */
  const splits = [];
  // A dot at the end splits off nothing: no field is named ''.
  for (let i = path.indexOf('.'); i >= 0 && i < path.length - 1; i = path.indexOf('.', i + 1))
    splits.push([path.slice(0, i), compilePath(path.slice(i + 1))]);
  compiled = { path, splits };
  if (compiledPaths.size >= MOST_COMPILED_PATHS) compiledPaths.clear();
  compiledPaths.set(path, compiled);
  return compiled;
}

/** @param {any} source @param {CompiledPath} compiled @returns {unknown} */
function valueAt(source, compiled) {
  if (source === null || typeof source !== 'object') return undefined;
  if (compiled.path in source) return source[compiled.path];
  // Every split point: {"rtr": {"app.id": ...}} and {"rtr": {"app": {"id": ...}}} both occur.
  for (const [head, rest] of compiled.splits) {
    if (head in source) {
      const value = valueAt(source[head], rest);
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/**
 * A field by dotted path, whether the document nests objects or uses dotted keys.
 * @param {any} source @param {string} path @returns {unknown}
 */
export function fieldOf(source, path) {
  if (!path) return undefined;
  return valueAt(source, compilePath(path));
}

/**
 * `<extra>.<name>` by extra, by name: no string built per lookup. Bounded by the header names the
 * mapping asks for (a fixed list and the configured correlation header).
 * @type {Map<string, Map<string, CompiledPath>>}
 */
const extraPaths = new Map();

/** The field `name` under `extra` (e.g. rtr.extra). @param {any} source @param {string} extra @param {string} name */
function extraField(source, extra, name) {
  let byName = extraPaths.get(extra);
  if (!byName) extraPaths.set(extra, (byName = new Map()));
  let compiled = byName.get(name);
  if (!compiled) byName.set(name, (compiled = compilePath(`${extra}.${name}`)));
  return valueAt(source, compiled);
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
 * Where pipelines keep the whole gorouter line, in the order `auto` tries them: logsearch's kept
 * line (`@raw`), `@message` (logsearch leaves the line there when its own RTR parse fails), ECS /
 * Filebeat / Logstash (`message`), Fluent Bit and Docker-style shippers (`log`).
 */
export const LINE_FIELDS = Object.freeze(['@raw', '@message', 'message', 'log']);

/**
 * The fields that may hold a gorouter line, in the order they are tried: the configured ones first.
 * @param {'auto' | 'logsearch' | 'raw'} format @param {FieldNames} fields @returns {string[]}
 */
export function lineFieldsFor(format, fields) {
  if (format === 'raw') return [fields.message];
  if (format === 'logsearch') return [fields.raw];
  return [...new Set([fields.raw, fields.message, ...LINE_FIELDS].filter(Boolean))];
}

/**
 * @typedef {{ fields: FieldNames, format: 'auto' | 'logsearch' | 'raw', correlationField?: string,
 *   lineFields?: string[] }} MappingOptions
 * @typedef {{ ok: true, record: import('./gorouter.js').RouterRequest, from: string }
 *   | { ok: false, reason: string, lookedIn: string[] }} DocumentResult `from`: the field the
 *   record came from (`rtr.*` for the parsed fields); `lookedIn`: every field tried
 */

/** Line-parse reasons that only say "this is not a gorouter line at all". */
const NOT_A_LINE = new Set(['not_text', 'empty', 'not_gorouter']);
/** The label of the parsed-fields way in `from` / `lookedIn`. @param {FieldNames} fields */
const parsedLabel = (fields) => `${fields.receivedAt.split('.')[0] || 'parsed'}.*`;

/**
 * A document as a RouterRequest: parsed rtr.* fields first (with the kept `@raw` line when it parses,
 * as it is exact to the microsecond), then a gorouter line in any of the line fields.
 * @param {any} source a document's _source
 * @param {MappingOptions} options
 * @returns {DocumentResult}
 */
export function mapDocument(source, options) {
  const { fields, format } = options;
  const lineFields = options.lineFields ?? lineFieldsFor(format, fields);
  if (!source || typeof source !== 'object') return { ok: false, reason: 'not_object', lookedIn: [] };
  /** @type {string[]} */
  const lookedIn = [];
  /** @type {string | undefined} a reason more telling than "no line here" */
  let failure;
  let sawText = false;
  /** @param {string} field @returns {DocumentResult | undefined} */
  const tryLine = (field) => {
    lookedIn.push(field);
    const line = fieldOf(source, field);
    if (typeof line !== 'string') return undefined;
    sawText = true;
    const parsed = parseGorouterLine(line, { correlationField: options.correlationField });
    if (parsed.ok) return { ok: true, record: withEnvelope(parsed.record, source, fields), from: field };
    if (!NOT_A_LINE.has(parsed.reason)) failure ??= parsed.reason;
    return undefined;
  };

  const hasParsedFields =
    format !== 'raw' &&
    (fieldOf(source, fields.receivedAt) !== undefined || fieldOf(source, fields.responseTimeMs) !== undefined);
  if (hasParsedFields) {
    const exact = fields.raw ? tryLine(fields.raw) : undefined;
    if (exact) return exact;
    lookedIn.push(parsedLabel(fields));
    const parsed = mapParsedFields(source, options);
    if (parsed.ok) return { ...parsed, from: parsedLabel(fields) };
    failure = parsed.reason;
    if (format !== 'auto') return { ok: false, reason: failure, lookedIn };
  }
  for (const field of lineFields) {
    if (lookedIn.includes(field)) continue;
    const found = tryLine(field);
    if (found) return found;
  }
  const nothing = format === 'raw' ? 'missing_message' : 'unknown_format';
  return { ok: false, reason: failure ?? (sawText && format !== 'logsearch' ? 'not_gorouter' : nothing), lookedIn };
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
  const extra = (/** @type {string} */ name) => text(extraField(source, fields.extra, name)) ?? undefined;
  const get = (/** @type {string} */ name) =>
    name === 'vcap_request_id' ? (text(fieldOf(source, fields.vcapRequestId)) ?? undefined) : extra(name);
  const appIndex = number(fieldOf(source, fields.appIndex));
  const bytesReceived = number(fieldOf(source, fields.bytesReceived));
  const bytesSent = number(fieldOf(source, fields.bytesSent));
  // Byte counts are stored as bigint: a fraction, or more than a double holds exactly, is no count.
  for (const bytes of [bytesReceived, bytesSent])
    if (typeof bytes === 'number' && !Number.isSafeInteger(bytes)) return { ok: false, reason: 'bad_bytes' };
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

/**
 * Adds what only the envelope knows (app name, app guid) to a record parsed from a line.
 * @param {import('./gorouter.js').RouterRequest} record @param {any} source @param {FieldNames} fields
 */
function withEnvelope(record, source, fields) {
  record.appName = record.appName ?? text(fieldOf(source, fields.appName));
  record.appGuid = record.appGuid ?? text(fieldOf(source, fields.appGuid))?.toLowerCase() ?? null;
  return record;
}
