// Ground truth for router-log tests: requests with known values, rendered as genuine gorouter
// lines and as logsearch (Logstash-parsed) documents. Expected rows come from the truth, not the parser.
import crypto from 'node:crypto';

/**
 * @typedef {object} TruthRequest
 * @property {string} id lower-case UUID sent by the load generator (X-Correlation-Id)
 * @property {string} vcapRequestId
 * @property {string} app
 * @property {string} appGuid
 * @property {number} appIndex
 * @property {number} receivedUs epoch microseconds
 * @property {number} responseUs response time in microseconds
 * @property {number} gorouterUs
 * @property {number} status
 * @property {string} path
 */

/** @param {string} seed */
const uuid = (seed) => {
  const h = crypto.createHash('md5').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** Epoch microseconds -> RFC 3339 with nanoseconds, as gorouter writes. @param {number} us */
export const nanos = (us) =>
  `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}${String(us % 7).padStart(3, '0')}Z`;
/** Epoch microseconds -> RFC 3339 with microseconds, as PostgreSQL returns. @param {number} us */
export const micros = (us) =>
  `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z`;
/** Microseconds -> seconds text with 6 decimals, as gorouter writes. @param {number} us */
const seconds = (us) => `${Math.floor(us / 1_000_000)}.${String(us % 1_000_000).padStart(6, '0')}`;

/**
 * `count` requests spread over [startMs, startMs + spanMs), deterministic.
 * @param {number} count @param {number} startMs @param {number} spanMs @param {string} [seed]
 * @returns {TruthRequest[]}
 */
export function makeRequests(count, startMs, spanMs, seed = 's') {
  return Array.from({ length: count }, (_, i) => {
    const app = i % 3 === 0 ? 'shop' : 'cart';
    return {
      id: uuid(`${seed}:id:${i}`),
      vcapRequestId: uuid(`${seed}:vcap:${i}`),
      app,
      appGuid: uuid(`app:${app}`),
      appIndex: i % 4,
      receivedUs: startMs * 1000 + Math.floor((i * spanMs * 1000) / count) + (i % 997),
      responseUs: 1000 + ((i * 7919) % 2_000_000),
      gorouterUs: 50 + (i % 300),
      status: i % 50 === 0 ? 503 : i % 20 === 0 ? 404 : 200,
      path: `/api/items/${i % 100}`,
    };
  });
}

/** A genuine gorouter access-log line for a request. @param {TruthRequest} r */
export function gorouterLine(r) {
  return (
    `${r.app}.apps.example.com - [${nanos(r.receivedUs)}] "GET ${r.path} HTTP/1.1" ${r.status} 0 42 "-" "paasmon-loadgen" "10.0.1.2:51234" "10.0.32.6:61001" ` +
    `x_forwarded_for:"10.0.1.2" x_forwarded_proto:"https" vcap_request_id:"${r.vcapRequestId}" response_time:${seconds(r.responseUs)} ` +
    `gorouter_time:${seconds(r.gorouterUs)} app_id:"${r.appGuid}" app_index:"${r.appIndex}" instance_id:"inst-${r.appIndex}" ` +
    `x_cf_routererror:"-" x_correlation_id:"${r.id}" x_b3_traceid:"${r.vcapRequestId.replace(/-/g, '')}" x_b3_spanid:"1234567890abcdef"`
  );
}

/** @timestamp: emit time = end of the request, ms. @param {TruthRequest} r */
export const emittedAt = (r) => new Date(Math.floor((r.receivedUs + r.responseUs) / 1000)).toISOString();

/** A logsearch-for-cloudfoundry RTR document. @param {TruthRequest} r */
export function logsearchDocument(r) {
  return {
    '@timestamp': emittedAt(r),
    '@type': 'LogMessage',
    '@source': { type: 'RTR' },
    '@cf': { app: r.app, app_id: r.appGuid, app_instance: 0, space: 'perf', org: 'lab' },
    '@message': `${r.status} GET ${r.path} (${(r.responseUs / 1000).toFixed(3)} ms)`,
    rtr: {
      hostname: `${r.app}.apps.example.com`,
      timestamp: nanos(r.receivedUs),
      verb: 'GET',
      path: r.path,
      http_spec: 'HTTP/1.1',
      status: r.status,
      request_bytes_received: 0,
      body_bytes_sent: 42,
      vcap_request_id: r.vcapRequestId,
      response_time_ms: r.responseUs / 1000,
      gorouter_time_ms: r.gorouterUs / 1000,
      app: { id: r.appGuid, index: r.appIndex },
      extra: { instance_id: `inst-${r.appIndex}`, x_cf_routererror: '-', x_correlation_id: r.id },
    },
  };
}

/** A document of a stack that keeps the gorouter line in `message`. @param {TruthRequest} r */
export function rawDocument(r) {
  return {
    '@timestamp': emittedAt(r),
    '@source': { type: 'RTR' },
    '@cf': { app: r.app, app_id: r.appGuid },
    message: gorouterLine(r),
  };
}

/**
 * A document of a pipeline that keeps the gorouter line in `field`: `log` (Fluent Bit, Docker-style
 * shippers, with the `cf logs` prefix and Docker's newline), `@message` (logsearch when its own RTR
 * parse failed). @param {TruthRequest} r @param {'log' | '@message'} field
 */
export function lineDocument(r, field) {
  const line = gorouterLine(r);
  return {
    '@timestamp': emittedAt(r),
    '@source': { type: 'RTR' },
    '@cf': { app: r.app, app_id: r.appGuid },
    ...(field === 'log' ? { log: `${emittedAt(r)} [RTR/${r.appIndex}] OUT ${line}\n`, stream: 'stdout' } : {}),
    ...(field === '@message' ? { '@message': line, tags: ['_grokparsefailure'] } : {}),
  };
}

/** The row router_requests must hold for a request. @param {TruthRequest} r */
export function expectedRow(r) {
  return {
    received_at: micros(r.receivedUs),
    app_name: r.app,
    app_guid: r.appGuid,
    app_index: r.appIndex,
    status: r.status,
    response_time_ms: r.responseUs / 1000,
    gorouter_time_ms: r.gorouterUs / 1000,
    correlation_id: r.id,
    vcap_request_id: r.vcapRequestId,
  };
}

/** The router_request record paasmon would parse from a request's line (for COPY benches). @param {TruthRequest} r */
export function routerRecord(r) {
  return {
    kind: /** @type {const} */ ('router_request'),
    receivedAt: new Date(Math.floor(r.receivedUs / 1000)),
    appGuid: r.appGuid,
    appName: r.app,
    appIndex: r.appIndex,
    method: 'GET',
    path: r.path,
    status: r.status,
    responseTimeMs: r.responseUs / 1000,
    gorouterTimeMs: r.gorouterUs / 1000,
    vcapRequestId: r.vcapRequestId,
    correlationId: r.id,
  };
}

/** Index settings for logs-app-* as logsearch maps them (response_time_ms as long). */
export const LOGSEARCH_TEMPLATE = {
  index_patterns: ['logs-app-*'],
  settings: { number_of_shards: 2, number_of_replicas: 0 },
  mappings: {
    properties: {
      '@timestamp': { type: 'date' },
      '@source': { properties: { type: { type: 'keyword' } } },
      '@cf': { properties: { app: { type: 'keyword' }, app_id: { type: 'keyword' } } },
      rtr: { properties: { response_time_ms: { type: 'long' }, timestamp: { type: 'keyword' } } },
      message: { type: 'text' },
    },
  },
};
