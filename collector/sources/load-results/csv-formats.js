// Row parsers of the CSV result files: JMeter's JTL, hey's `-o csv`, vegeta's `encode --to csv`
// and k6's `--out csv`. Each takes the fields of one row (csv-parse has undone the quoting) and
// returns a request, a skip reason, or null for a row that is no request.
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { errorOf, num, request, transportErrorKind } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */
/** @typedef {(fields: string[]) => LineResult} RowParser */

/** @param {string[]} header @param {string} name */
const column = (header, name) => header.indexOf(name);

/** JTL columns that may hold the request's correlation id (a `sample_variables` column). */
export const JMETER_ID_COLUMNS = ['paasmon_id', 'correlation_id', 'x-correlation-id', 'traceparent'];

/**
 * JMeter JTL (CSV with a header): timeStamp is epoch ms at the sample's start (JMeter's shipped
 * sampleresult.timestamp.start=true), elapsed ms; a sample JMeter could not send has a
 * `Non HTTP response code: ...` instead of a status.
 * @param {string[]} header @returns {RowParser}
 */
export function jmeterRows(header) {
  const at = {
    time: column(header, 'timeStamp'),
    elapsed: column(header, 'elapsed'),
    label: column(header, 'label'),
    code: column(header, 'responseCode'),
    message: column(header, 'responseMessage'),
    success: column(header, 'success'),
    failure: column(header, 'failureMessage'),
    bytes: column(header, 'bytes'),
    url: column(header, 'URL'),
    id: header.findIndex((name) => JMETER_ID_COLUMNS.includes(name.toLowerCase())),
  };
  if (at.time < 0 || at.elapsed < 0 || at.success < 0)
    throw new Error('JTL header lacks timeStamp, elapsed or success: save them (jmeter.save.saveservice.*)');
  return (fields) => {
    if (fields.length < header.length) return LOAD_RESULTS.SHORT_ROW;
    const startedAtMs = num(fields[at.time]);
    const durationMs = num(fields[at.elapsed]);
    if (Number.isNaN(startedAtMs) || Number.isNaN(durationMs) || durationMs < 0) return LOAD_RESULTS.BAD_NUMBER;
    const ok = fields[at.success] === 'true';
    const code = at.code < 0 ? '' : fields[at.code];
    const status = /^\d{3}$/.test(code) ? Number(code) : 0;
    const message = (at.failure >= 0 && fields[at.failure]) || (at.message >= 0 ? fields[at.message] : '');
    const bytes = at.bytes < 0 ? Number.NaN : num(fields[at.bytes]);
    const label = at.label < 0 ? '' : fields[at.label];
    return request({
      correlationId: at.id < 0 ? null : fields[at.id],
      startedAtMs,
      durationMs,
      status,
      error: ok ? null : status ? message || `status ${status}` : transportErrorKind(`${code} ${message}`),
      tool: 'jmeter',
      method: /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /.exec(label)?.[1] ?? null,
      url: (at.url >= 0 && fields[at.url]) || label || null,
      bytes: Number.isNaN(bytes) ? null : bytes,
    });
  };
}

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
