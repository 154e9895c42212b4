// Row parsers of the CSV result files: hey's `-o csv`, vegeta's `encode --to csv` and k6's
// `--out csv` (JMeter's JTL is in jmeter.js). Each takes the fields of one row (csv-framing.js has
// undone the quoting) and returns a request, a skip reason, or null for a row that is no request.
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { errorOf, num, request } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */
/** @typedef {(fields: string[]) => LineResult} RowParser */

export const HEY_HEADER = [
  'response-time',
  'DNS+dialup',
  'DNS',
  'Request-write',
  'Response-delay',
  'Response-read',
  'status-code',
  'offset',
];

/**
 * hey `-o csv`: times in seconds, `offset` from hey's own start, so the absolute start is
 * `startedAtMs` (run exec's launch time, or --started-at). One row per response; hey leaves
 * transport errors out of the file. hey counts no status as failed; a status >= 400 is stored as
 * an error, as the other tools do.
 * @param {{ startedAtMs: number, url?: string }} options @returns {RowParser}
 */
export function heyRows({ startedAtMs, url }) {
  return (fields) => {
    if (fields[0] === HEY_HEADER[0]) return null;
    if (fields.length !== HEY_HEADER.length) return LOAD_RESULTS.SHORT_ROW;
    const seconds = num(fields[0]);
    const status = num(fields[6]);
    const offset = num(fields[7]);
    if ([seconds, status, offset].some(Number.isNaN) || seconds < 0) return LOAD_RESULTS.BAD_NUMBER;
    return request({
      startedAtMs: startedAtMs + offset * 1000,
      durationMs: Math.round(seconds * 1e6) / 1e3,
      status,
      error: status >= 400 ? `status ${status}` : null,
      tool: 'hey',
      method: null,
      url: url ?? null,
      bytes: null,
    });
  };
}

/**
 * The id a request carried in its URL's query (`paasmon_id` or `cid`): vegeta's results hold the
 * URL but no request header, so the targets generator puts the id in both.
 * @param {string | null | undefined} url
 */
export function idFromUrl(url) {
  if (!url || !url.includes('?')) return null;
  const query = new URLSearchParams(url.slice(url.indexOf('?') + 1));
  return query.get('paasmon_id') ?? query.get('cid');
}

/**
 * vegeta `encode --to csv` (no header): timestamp ns, code, latency ns, bytes_out, bytes_in, error,
 * body, attack, seq, method, url, headers. Success as `vegeta report` counts it: 200 <= code < 400.
 * @returns {RowParser}
 */
export function vegetaCsvRows() {
  return (fields) => {
    if (fields.length < 11) return LOAD_RESULTS.SHORT_ROW;
    const [timestamp, code, latency, , bytesIn, error] = fields;
    const startedNs = num(timestamp);
    const status = num(code);
    const latencyNs = num(latency);
    if ([startedNs, status, latencyNs].some(Number.isNaN)) return LOAD_RESULTS.BAD_NUMBER;
    if (status === 0 && fields[10] === '' && /no targets/.test(error)) return null;
    return vegetaRequest({
      startedAtMs: startedNs / 1e6,
      durationMs: latencyNs / 1e6,
      status,
      error,
      method: fields[9] || null,
      url: fields[10] || null,
      bytes: num(bytesIn),
    });
  };
}

/**
 * @param {{ startedAtMs: number, durationMs: number, status: number, error: string, method: string | null,
 *   url: string | null, bytes: number }} r
 */
export function vegetaRequest(r) {
  const ok = r.status >= 200 && r.status < 400 && !r.error;
  return request({
    correlationId: idFromUrl(r.url),
    startedAtMs: r.startedAtMs,
    durationMs: r.durationMs,
    status: r.status,
    error: errorOf(ok, r.status, r.error),
    tool: 'vegeta',
    method: r.method,
    url: r.url,
    bytes: Number.isNaN(r.bytes) ? null : r.bytes,
  });
}

export const K6_CSV_HEADER_START = ['metric_name', 'timestamp', 'metric_value'];

/**
 * k6 `--out csv`: one row per metric sample; a request is its `http_req_duration` row. The
 * timestamp is when k6 took the sample (the response's end): in whole seconds by default, or ms,
 * us, ns (told by the digits) or RFC 3339 (K6_CSV_TIME_FORMAT). Ids come from `extra_tags`
 * (`trace_id=...&...`).
 * @param {string[]} header @returns {RowParser}
 */
export function k6CsvRows(header) {
  const at = Object.fromEntries(header.map((name, i) => [name, i]));
  return (fields) => {
    if (fields[0] !== 'http_req_duration') return null;
    if (fields.length < header.length) return LOAD_RESULTS.SHORT_ROW;
    const endMs = k6TimeMs(fields[at.timestamp]);
    const durationMs = num(fields[at.metric_value]);
    if (Number.isNaN(endMs) || Number.isNaN(durationMs) || durationMs < 0) return LOAD_RESULTS.BAD_NUMBER;
    const status = num(fields[at.status]) || 0;
    const extra = new URLSearchParams(fields[at.extra_tags] ?? '');
    const expected = extra.get('expected_response');
    const ok = expected ? expected === 'true' : status >= 200 && status < 400;
    return request({
      correlationId: extra.get('trace_id') ?? extra.get('correlation_id') ?? extra.get('paasmon_id'),
      startedAtMs: endMs - durationMs,
      durationMs,
      status,
      error: errorOf(ok, status, fields[at.error] || fields[at.error_code]),
      tool: 'k6',
      method: fields[at.method] || null,
      url: fields[at.url] || fields[at.name] || null,
      bytes: null,
    });
  };
}

/** @param {string} text k6's CSV timestamp @returns {number} epoch ms, NaN when unreadable */
export function k6TimeMs(text) {
  if (/^\d+$/.test(text)) {
    const scale = { 10: 1000, 13: 1, 16: 1e-3, 19: 1e-6 }[text.length];
    return scale === undefined ? Number.NaN : Number(text) * scale;
  }
  return Date.parse(text);
}
