// Parsers of the JSON-lines result files: k6's `--out json`, vegeta's `encode --to json` and the
// lines the project's Locust listener writes (loadgen/tools/locustfile.py). Each takes one parsed
// line and returns a request, a skip reason, or null for a line that is no request.
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { vegetaRequest } from './csv-formats.js';
import { errorOf, num, request, transportErrorKind } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */
/** @typedef {(line: any) => LineResult} ObjectParser */

/**
 * k6 `--out json`: `Metric` lines declare, `Point` lines sample; a request is one Point of
 * `http_req_duration` (ms), stamped when k6 took it (the response's end). The id: a tag
 * (`trace_id`, `correlation_id`, `paasmon_id`) or the point's metadata `trace_id`, which k6's
 * tracing instrumentation sets with the W3C traceparent it sends.
 * @type {ObjectParser}
 */
export function k6JsonLine(line) {
  if (line?.type !== 'Point' || line.metric !== 'http_req_duration') return line?.type ? null : LOAD_RESULTS.NOT_K6;
  const data = line.data ?? {};
  const endMs = Date.parse(data.time);
  const durationMs = typeof data.value === 'number' ? data.value : Number.NaN;
  if (Number.isNaN(endMs) || Number.isNaN(durationMs) || durationMs < 0) return LOAD_RESULTS.BAD_NUMBER;
  const tags = data.tags ?? {};
  const meta = data.metadata ?? {};
  const status = num(tags.status) || 0;
  const ok = tags.expected_response ? tags.expected_response === 'true' : status >= 200 && status < 400;
  return request({
    correlationId: meta.trace_id ?? tags.trace_id ?? tags.correlation_id ?? tags.paasmon_id ?? null,
    startedAtMs: endMs - durationMs + subMs(data.time),
    durationMs,
    status,
    error: errorOf(ok, status, tags.error || tags.error_code),
    tool: 'k6',
    method: tags.method ?? null,
    url: tags.url ?? tags.name ?? null,
    bytes: null,
  });
}

/**
 * The sub-millisecond part of an RFC 3339 time (Date.parse keeps whole ms): `.239531499` -> 0.531499.
 * @param {string} time
 */
function subMs(time) {
  const fraction = /\.(\d+)/.exec(time)?.[1] ?? '';
  return fraction.length > 3 ? Number(`0.${fraction.slice(3)}`) : 0;
}

/**
 * vegeta `encode --to json`: timestamp RFC 3339 (ns) at the request's start, latency ns; the
 * results an attack with -lazy emits after its last target (`no targets to attack`) are no request.
 * @type {ObjectParser}
 */
export function vegetaJsonLine(line) {
  if (typeof line?.seq !== 'number' || typeof line.latency !== 'number') return LOAD_RESULTS.NOT_VEGETA;
  if (!line.url && line.code === 0 && /no targets/.test(line.error ?? '')) return null;
  const startedAtMs = Date.parse(line.timestamp);
  if (Number.isNaN(startedAtMs)) return LOAD_RESULTS.BAD_TIME;
  return vegetaRequest({
    startedAtMs: startedAtMs + subMs(line.timestamp),
    durationMs: line.latency / 1e6,
    status: num(line.code) || 0,
    error: line.error ?? '',
    method: line.method || null,
    url: line.url || null,
    bytes: num(line.bytes_in),
  });
}

/**
 * The Locust listener's lines: start_time epoch s, response_time ms, the exception's repr when
 * Locust counted the request as failed (an HTTPError for a status >= 400, a transport error else).
 * @type {ObjectParser}
 */
export function locustLine(line) {
  const startedS = line?.start_time;
  const durationMs = line?.response_time;
  if (typeof startedS !== 'number' || typeof durationMs !== 'number' || durationMs < 0) return LOAD_RESULTS.BAD_NUMBER;
  const status = num(line.status) || 0;
  const exception = line.exception ?? null;
  return request({
    correlationId: line.correlation_id ?? null,
    startedAtMs: startedS * 1000,
    durationMs,
    status,
    error: exception === null ? null : status ? String(exception).slice(0, 500) : transportErrorKind(exception),
    tool: 'locust',
    method: line.request_type ?? null,
    url: line.url ?? line.name ?? null,
    bytes: typeof line.response_length === 'number' ? line.response_length : null,
  });
}
