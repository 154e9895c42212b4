// A stand-in for gorouter, shared by the tests and `paasmon demo` (never used against a real
// platform): a reverse proxy in front of app instances that writes genuine-format access-log lines.
// vcap_request_id comes from an incoming 128-bit traceparent (as gorouter does with tracing on),
// else it is random; x_correlation_id is logged when `extraHeaders` lists it
// (router.extra_headers_to_log). `routerDelayMs` is time the router spends before it dials the app
// (route lookup, a slow handler), counted in gorouter_time as gorouter counts its own time.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';

/** Wall-clock now in epoch microseconds, from a monotonic clock. */
const startWallUs = Date.now() * 1000;
const startHr = process.hrtime.bigint();
const nowUs = () => startWallUs + Number((process.hrtime.bigint() - startHr) / 1000n);
/** @param {number} us */
const rfc3339Nanos = (us) =>
  `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}000Z`;
/** @param {number} us */
const seconds = (us) => (us / 1e6).toFixed(6);

/**
 * One access-log line in gorouter's format.
 * @param {http.IncomingMessage} req @param {http.IncomingMessage} answer
 * @param {{ host: string, appGuid: string, index: number, target: URL, vcapRequestId: string, trace: string,
 *   extraHeaders: string[], bytes: number, receivedUs: number, doneUs: number, routerUs: number }} f
 */
function accessLine(req, answer, f) {
  const { trace } = f;
  const extras = f.extraHeaders
    .map((h) => ` ${h.toLowerCase().replace(/-/g, '_')}:"${req.headers[h.toLowerCase()] ?? '-'}"`)
    .join('');
  return (
    `${f.host} - [${rfc3339Nanos(f.receivedUs)}] "${req.method} ${req.url} HTTP/1.1" ${answer.statusCode} 0 ${f.bytes} "-" "${req.headers['user-agent'] ?? '-'}" ` +
    `"127.0.0.1:${req.socket.remotePort}" "${f.target.host}" x_forwarded_for:"127.0.0.1" x_forwarded_proto:"http" vcap_request_id:"${f.vcapRequestId}" ` +
    `response_time:${seconds(f.doneUs - f.receivedUs)} gorouter_time:${seconds(f.routerUs)} ` +
    `app_id:"${f.appGuid}" app_index:"${f.index}" instance_id:"standin-${f.index}" x_cf_routererror:"-"${extras} ` +
    `x_b3_traceid:"${trace}" x_b3_spanid:"${trace.slice(16)}" x_b3_parentspanid:"-" b3:"${trace}-${trace.slice(16)}"`
  );
}

/**
 * @param {{ backends: string[], appGuid: string, host: string, logFile: string, extraHeaders?: string[],
 *   onLine?: (line: string) => void, routerDelayMs?: () => number }} options onLine also gets every access-log
 *   line (without its newline), as gorouter hands it to the loggregator agent; routerDelayMs is read per request
 */
export async function startGorouterStandin({
  backends: initialBackends,
  appGuid,
  host,
  logFile,
  extraHeaders = [],
  onLine,
  routerDelayMs = () => 0,
}) {
  let backends = initialBackends;
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const receivedUs = nowUs();
    const delayMs = routerDelayMs();
    if (delayMs > 0) setTimeout(() => route(req, res, receivedUs), delayMs);
    else route(req, res, receivedUs);
  });
  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {number} receivedUs */
  const route = (req, res, receivedUs) => {
    if (backends.length === 0) {
      res.writeHead(503).end();
      return;
    }
    const index = next++ % backends.length;
    const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-/.exec(String(req.headers.traceparent ?? ''));
    const trace = traceparent?.[1] ?? crypto.randomBytes(16).toString('hex');
    const vcapRequestId = `${trace.slice(0, 8)}-${trace.slice(8, 12)}-${trace.slice(12, 16)}-${trace.slice(16, 20)}-${trace.slice(20)}`;
    const target = new URL(req.url ?? '/', backends[index]);
    let backendStartUs = 0;
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, 'x-vcap-request-id': vcapRequestId }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let bytes = 0;
        answer.on('data', (chunk) => {
          bytes += chunk.length;
          res.write(chunk);
        });
        answer.on('end', () => {
          // Like gorouter, the time the last byte goes to the client's connection; taken just before
          // the write, so the client (on loopback) can never see the response end before it.
          const backendEndUs = nowUs();
          const doneUs = nowUs();
          res.end();
          const routerUs = doneUs - receivedUs - (backendEndUs - backendStartUs);
          const fields = { host, appGuid, index, target, vcapRequestId, trace, extraHeaders };
          const line = accessLine(req, answer, { ...fields, bytes, receivedUs, doneUs, routerUs });
          log.write(`${line}\n`);
          onLine?.(line);
        });
      },
    );
    upstream.on('error', () => {
      res.writeHead(502).end();
    });
    backendStartUs = nowUs();
    req.pipe(upstream);
  };
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`,
    /** Routes to these instances from now on, app_index = position (as after a `cf scale`). @param {string[]} list */
    setBackends(list) {
      backends = list;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      agent.destroy();
      await new Promise((r) => log.end(r));
    },
  };
}

/**
 * `count` app instances for the stand-in to route to: keep-alive HTTP servers on loopback, each
 * answering with `respond(index, req, res)`.
 * @param {number} count
 * @param {(index: number, req: http.IncomingMessage, res: http.ServerResponse) => void} respond
 */
export async function startAppInstances(count, respond) {
  /** @type {http.Server[]} */
  const servers = [];
  for (let i = 0; i < count; i++) {
    const server = http.createServer((req, res) => respond(i, req, res));
    server.keepAliveTimeout = 30_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (s.address()).port}`),
    close() {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}
