// GET /metrics (Prometheus text; bearer token when configured) and GET /healthz (JSON).
import crypto from 'node:crypto';
import http from 'node:http';

/**
 * @typedef {object} Health
 * @property {boolean} healthy
 * @property {Record<string, unknown>} body
 */

/**
 * @param {object} options
 * @param {import('prom-client').Registry} options.registry
 * @param {() => Promise<Health>} options.health
 * @param {string | undefined} options.bearerToken
 * @param {import('pino').Logger} options.log
 * @param {Record<string, import('./sources/syslog-drain/http.js').RouteHandler>} [options.routes]
 *   more paths with their own methods and authentication (the syslog drain's POST /drain)
 */
export function createHttpServer({ registry, health, bearerToken, log, routes = {} }) {
  const expected = bearerToken ? Buffer.from(`Bearer ${bearerToken}`) : undefined;
  return http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : undefined;
      if (route) {
        await route(req, res, url);
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      } else if (url.pathname === '/metrics') {
        if (expected && !bearerMatches(req.headers.authorization, expected)) {
          res
            .writeHead(401, { 'WWW-Authenticate': 'Bearer realm="paasmon"', 'Content-Type': 'text/plain' })
            .end('bearer token required\n');
          return;
        }
        const text = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(text);
      } else if (url.pathname === '/healthz') {
        const { healthy, body } = await health();
        res.writeHead(healthy ? 200 : 503, { 'Content-Type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('paasmon: GET /metrics or /healthz\n');
      }
    } catch (err) {
      log.error({ err, path: url.pathname }, 'http: request failed');
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
}

/**
 * Constant-time comparison, so the token cannot be guessed byte by byte from timings.
 * @param {string | undefined} header
 * @param {Buffer} expected
 */
function bearerMatches(header, expected) {
  if (!header) return false;
  const given = Buffer.from(header.replace(/^bearer /i, 'Bearer '));
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
