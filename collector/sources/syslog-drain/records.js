// Pure: one drain message -> a RouterRequest, or the reason it is not one. RTR lines go through the
// same gorouter parser as the file and search sources, so all three produce the same unique key.
import { parseGorouterLine } from '../gorouter/parse.js';
import { procIdIsSource, scanSyslogEnvelope } from './envelope.js';
import { LINE } from '../../../core/reason-codes.js';

/** The agent's tag element (rfc5424.go tagsStructuredDataID). */
const TAGS_SD = 'tags@47450';

/**
 * @typedef {{ ok: true, record: import('../../../core/types.js').RouterRequest }
 *   | { ok: false, reason: string, ignored: boolean }} DrainRecordResult
 * `ignored` is true for well-formed lines that are simply not router lines (APP, API, gauges...).
 */

/**
 * @param {string} text one RFC 5424 message
 * @param {{ correlationField?: string }} options
 * @returns {DrainRecordResult}
 */
export function routerRequestFromSyslog(text, options) {
  const scanned = scanSyslogEnvelope(text, TAGS_SD, 'app_name');
  if (!scanned.ok) return { ok: false, reason: scanned.reason, ignored: false };
  const m = scanned.envelope;
  if (!procIdIsSource(text, m.procId, m.procIdEnd, 'RTR')) return { ok: false, reason: LINE.NOT_RTR, ignored: true };
  const line = parseGorouterLine(text.slice(m.message, m.messageEnd), options);
  // An RTR message with nothing in it, as `cf logs` shows it (`[RTR/n] OUT`): no request, no loss.
  if (!line.ok && line.reason === LINE.EMPTY) return { ok: false, reason: LINE.EMPTY_RTR, ignored: true };
  if (!line.ok) return { ok: false, reason: line.reason, ignored: false };
  // The line's app_id is the key the other sources use; the APP-NAME field (the source id) stands in
  // when a router writes none.
  line.record.appGuid ??= nil(text.slice(m.appName, m.appNameEnd))?.toLowerCase() ?? null;
  // The tag keeps the app name as the user wrote it; the hostname's last part is sanitized (rfc5424.go).
  line.record.appName = m.tag ?? appNameOfHostname(nil(text.slice(m.hostname, m.hostnameEnd)));
  return line;
}

/** A header field's nil value. @param {string} field */
const nil = (field) => (field === '-' ? null : field);

/** `org.space.app` -> `app` (the agent's hostname for an app drain). @param {string | null} hostname */
export function appNameOfHostname(hostname) {
  if (!hostname) return null;
  const parts = hostname.split('.');
  return parts.length === 3 && parts[2] ? parts[2] : null;
}
