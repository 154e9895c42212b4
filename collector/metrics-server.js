// GET /metrics (Prometheus text; bearer token when configured, closed on Cloud Foundry without one),
// GET /healthz (the detailed report, JSON), GET /livez (liveness: restart me) and GET /readyz
// (readiness: route to me); the load generator's /metrics while `loadgen` or `worker` drives a run.
import crypto from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createPrometheusSink } from '../exporters/prometheus.js';

/**
 * /livez fails once the event loop stood still longer than this (and for STALL_MEMORY_MS after):
 * equal to the manifest's health-check-invocation-timeout, so a check that timed out and a check
 * answered after such a stall say the same.
 */
export const MAX_LOOP_STALL_MS = 10_000;
/** A stall is remembered this long: longer than Cloud Foundry's check interval (30 s by default). */
export const STALL_MEMORY_MS = 60_000;
const TICK_MS = 250;
/**
 * Longer than gorouter keeps an idle connection to an app (90 s): with Node's default 5 s, a POST the
 * router sends on a connection the server is just closing comes back as 502 endpoint_failure.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 95_000;
/** Above the keep-alive timeout, as Node needs, so a reused connection's next headers are not cut short. */
export const HEADERS_TIMEOUT_MS = 96_000;

/**
 * @typedef {object} Health
 * @property {boolean} healthy
 * @property {Record<string, unknown>} body
 */

/**
 * @param {object} options
 * @param {import('prom-client').Registry} options.registry
 * @param {() => Promise<Health>} options.health GET /healthz
 * @param {() => Health} [options.live] GET /livez (always 200 when not given)
 * @param {() => Promise<Health>} [options.ready] GET /readyz (always 200 when not given)
 * @param {string | undefined} options.bearerToken
 * @param {boolean} [options.closed] /metrics answers 401 to everyone (on Cloud Foundry without a token: metricsAccess)
 * @param {import('pino').Logger} options.log
 * @param {Record<string, import('./sources/syslog-drain/http.js').RouteHandler>} [options.routes]
 *   more paths with their own methods and authentication (the syslog drain's POST /drain)
 */
export function createHttpServer({ registry, health, live, ready, bearerToken, closed = false, log, routes = {} }) {
  /** @type {Record<string, () => Health | Promise<Health>>} */
  const checks = {
    '/healthz': health,
    '/livez': live ?? (() => ({ healthy: true, body: { status: 'ok' } })),
    '/readyz': ready ?? (async () => ({ healthy: true, body: { status: 'ok' } })),
  };
  const expected = bearerToken ? Buffer.from(`Bearer ${bearerToken}`) : undefined;
  if (closed) log.warn(CLOSED_WARNING);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : undefined;
      if (route) {
        await route(req, res, url);
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      } else if (url.pathname === '/metrics') {
        if (closed || (expected && !bearerMatches(req.headers.authorization, expected))) {
          res
            .writeHead(401, { 'WWW-Authenticate': 'Bearer realm="paasmon"', 'Content-Type': 'text/plain' })
            .end(closed ? CLOSED_ANSWER : 'bearer token required\n');
          return;
        }
        const text = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(text);
      } else if (Object.hasOwn(checks, url.pathname)) {
        const { healthy, body } = await checks[url.pathname]();
        res.writeHead(healthy ? 200 : 503, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
      } else {
        res
          .writeHead(404, { 'Content-Type': 'text/plain' })
          .end('paasmon: GET /metrics, /healthz, /livez or /readyz\n');
      }
    } catch (err) {
      log.error({ err, path: url.pathname }, 'http: request failed');
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  return server;
}

const CLOSED_ANSWER = '/metrics is closed on Cloud Foundry: set METRICS_BEARER_TOKEN, or METRICS_PUBLIC=true\n';
const CLOSED_WARNING =
  'http: /metrics answers 401 (on Cloud Foundry without METRICS_BEARER_TOKEN): set METRICS_BEARER_TOKEN and ' +
  'give Prometheus the same token, or METRICS_PUBLIC=true to open it to anyone who finds the route';

/**
 * Who may read /metrics: with a token, whoever sends it; on Cloud Foundry without one, nobody unless
 * METRICS_PUBLIC=true (a route is public, so is what it serves); elsewhere anyone (a run on one's machine).
 * @param {Pick<import('./config/index.js').Config, 'metricsBearerToken' | 'metricsPublic' | 'onCloudFoundry'>} config
 * @returns {{ bearerToken: string | undefined, closed: boolean }}
 */
export function metricsAccess(config) {
  const bearerToken = config.metricsBearerToken;
  return { bearerToken, closed: !bearerToken && config.onCloudFoundry && !config.metricsPublic };
}

/** @param {Buffer} value */
const digest = (value) => crypto.createHash('sha256').update(value).digest();

/**
 * Constant-time comparison, so the token cannot be guessed byte by byte from timings: of digests,
 * so that not even its length shows.
 * @param {string | undefined} header
 * @param {Buffer} expected
 */
export function bearerMatches(header, expected) {
  const given = Buffer.from((header ?? '').replace(/^bearer /i, 'Bearer '));
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/**
 * Watches the event loop with a timer that should fire every TICK_MS: the time it came late is how
 * long the loop stood still (a blocking call, a frozen process, a heap collecting without end).
 * `check()` is /livez: failing while the loop stands still or stood still longer than `maxStallMs`
 * within the last `memoryMs`, when this process cannot serve drains, polls or scrapes in time.
 * @param {{ maxStallMs?: number, memoryMs?: number }} [options]
 */
export function watchEventLoop({ maxStallMs = MAX_LOOP_STALL_MS, memoryMs = STALL_MEMORY_MS } = {}) {
  let lastTick = performance.now();
  let longest = { ms: 0, at: -Infinity };
  const timer = setInterval(() => {
    const now = performance.now();
    const stall = Math.max(0, now - lastTick - TICK_MS);
    if (stall >= longest.ms || now - longest.at > memoryMs) longest = { ms: stall, at: now };
    lastTick = now;
  }, TICK_MS);
  timer.unref();
  return {
    /** @returns {Health} */
    check() {
      const now = performance.now();
      const current = Math.max(0, now - lastTick - TICK_MS);
      const recent = now - longest.at <= memoryMs ? longest.ms : 0;
      const stallMs = Math.round(Math.max(current, recent));
      const healthy = stallMs <= maxStallMs;
      return {
        healthy,
        body: {
          status: healthy ? 'ok' : 'failing',
          eventLoop: { longestStallMs: stallMs, maxStallMs, withinMs: memoryMs },
        },
      };
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * /metrics of the load generator while it runs (of a worker, while it lives). Undefined when no port is asked for.
 * @param {number | undefined} port @param {import('./config/index.js').Config} config
 * @param {import('pino').Logger} log
 */
export async function serveLoadgenMetrics(port, config, log) {
  if (port === undefined) return undefined;
  const sink = createPrometheusSink({ runSeriesTtlMs: config.metricsRunSeriesTtlMs });
  const server = createHttpServer({
    registry: sink.registry,
    ...metricsAccess(config),
    log,
    health: async () => ({ healthy: true, body: { status: 'ok', source: 'loadgen' } }),
  });
  server.listen(port);
  await once(server, 'listening').catch((err) => {
    const reason = err.code === 'EADDRINUSE' ? 'is in use by another process' : `cannot be listened on: ${err.message}`;
    throw new Error(`--metrics-port ${port} (or $PORT) ${reason}`, { cause: err });
  });
  log.info(
    { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port },
    'loadgen: serving /metrics',
  );
  return {
    /** @param {import('../core/types.js').LoadgenRequest} request */
    observe: (request) => sink.write([request]),
    /** @param {number} run */
    recordWait: (run) => sink.countRecordWait(run),
    /** @param {number} run */
    runEnded: (run) => sink.runEnded(run),
    /** For the run's PostgreSQL recording to count into. */
    postgresMetrics: sink.postgresMetrics,
    close: async () => {
      await sink.close();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
