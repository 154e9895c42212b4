// Pure mapping of search documents to RouterRequest records: `logsearch` (Logstash-parsed rtr.*
// fields), `raw` (the gorouter line in one message field) and `auto` (either, the line wherever
// pipelines keep it).
// Its parts: document-fields.js (field names), field-values.js (lookups), parsed-fields.js (rtr.*).
import { LINE } from '../../../core/reason-codes.js';
import { lineFieldsFor } from './document-fields.js';
import { compiledFields, fieldOf, text, valueOf } from './field-values.js';
import { parseGorouterLine } from '../gorouter/parse.js';
import { mapParsedFields } from './parsed-fields.js';

export { FIELD_PRESETS, LINE_FIELDS, fieldNamesFor, lineFieldsFor } from './document-fields.js';
export { fieldOf } from './field-values.js';

/**
 * @typedef {import('./document-fields.js').FieldNames} FieldNames
 * @typedef {import('./document-fields.js').MappingOptions} MappingOptions
 * @typedef {{ ok: true, record: import('../gorouter/parse.js').RouterRequest, from: string }
 *   | { ok: false, reason: string, lookedIn: string[] }} DocumentResult `from`: the field the
 *   record came from (`rtr.*` for the parsed fields); `lookedIn`: every field tried
 */

/** Line-parse reasons that only say "this is not a gorouter line at all". @type {ReadonlySet<string>} */
const NOT_A_LINE = new Set([LINE.NOT_TEXT, LINE.EMPTY, LINE.NOT_GOROUTER]);
/** The label of the parsed-fields way in `from` / `lookedIn`, by field names. @type {WeakMap<FieldNames, string>} */
const parsedLabels = new WeakMap();
/** @param {FieldNames} fields */
function parsedLabel(fields) {
  let label = parsedLabels.get(fields);
  if (label === undefined) parsedLabels.set(fields, (label = `${fields.receivedAt.split('.')[0] || 'parsed'}.*`));
  return label;
}

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
  if (!source || typeof source !== 'object') return { ok: false, reason: LINE.NOT_OBJECT, lookedIn: [] };
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

  const at = compiledFields(fields);
  const rawTime = format === 'raw' ? undefined : valueOf(source, at.receivedAt);
  const hasParsedFields =
    format !== 'raw' && (rawTime !== undefined || valueOf(source, at.responseTimeMs) !== undefined);
  if (hasParsedFields) {
    const exact = fields.raw ? tryLine(fields.raw) : undefined;
    if (exact) return exact;
    lookedIn.push(parsedLabel(fields));
    const parsed = mapParsedFields(source, options, rawTime);
    if (parsed.ok) return { ok: true, record: parsed.record, from: parsedLabel(fields) };
    failure = parsed.reason;
    if (format !== 'auto') return { ok: false, reason: failure, lookedIn };
  }
  for (const field of lineFields) {
    if (lookedIn.includes(field)) continue;
    const found = tryLine(field);
    if (found) return found;
  }
  const nothing = format === 'raw' ? LINE.MISSING_MESSAGE : LINE.UNKNOWN_FORMAT;
  return { ok: false, reason: failure ?? (sawText && format !== 'logsearch' ? LINE.NOT_GOROUTER : nothing), lookedIn };
}
/**
 * Adds what only the envelope knows (app name, app guid) to a record parsed from a line.
 * @param {import('../gorouter/parse.js').RouterRequest} record @param {any} source @param {FieldNames} fields
 */
function withEnvelope(record, source, fields) {
  const at = compiledFields(fields);
  record.appName = record.appName ?? text(valueOf(source, at.appName));
  record.appGuid = record.appGuid ?? text(valueOf(source, at.appGuid))?.toLowerCase() ?? null;
  return record;
}
