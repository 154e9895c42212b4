// Where a search document keeps each value: the field-name presets (logsearch, raw), the user's
// overrides, and the fields that may hold a whole gorouter line.
import { ConfigError } from '../../../core/errors.js';

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
 */
