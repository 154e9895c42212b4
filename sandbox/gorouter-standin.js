// A stand-in for gorouter, shared by the tests and `paasmon demo` (never used against a real
// platform): a reverse proxy in front of app instances that writes genuine-format access-log lines.
// vcap_request_id comes from an incoming 128-bit traceparent (as gorouter does with tracing on),
// else it is random; x_correlation_id is logged when `extraHeaders` lists it
// (router.extra_headers_to_log).
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
 * @param {{ backends: string[], appGuid: string, host: string, logFile: string, extraHeaders?: string[],
 *   onLine?: (line: string) => void }} options onLine also gets every access-log line (without its newline), as
 *   gorouter hands it to the loggregator agent
 */
export async function startGorouterStandin({
  backends: initialBackends,
  appGuid,
  host,
  logFile,
  extraHeaders = [],
  onLine,
}) {
  let backends = initialBackends;
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const receivedUs = nowUs();
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
          {
            const extras = extraHeaders
              .map((h) => ` ${h.toLowerCase().replace(/-/g, '_')}:"${req.headers[h.toLowerCase()] ?? '-'}"`)
              .join('');
            const line =
              `${host} - [${rfc3339Nanos(receivedUs)}] "${req.method} ${req.url} HTTP/1.1" ${answer.statusCode} 0 ${bytes} "-" "${req.headers['user-agent'] ?? '-'}" ` +
              `"127.0.0.1:${req.socket.remotePort}" "${target.host}" x_forwarded_for:"127.0.0.1" x_forwarded_proto:"http" vcap_request_id:"${vcapRequestId}" ` +
              `response_time:${seconds(doneUs - receivedUs)} gorouter_time:${seconds(doneUs - receivedUs - (backendEndUs - backendStartUs))} ` +
              `app_id:"${appGuid}" app_index:"${index}" instance_id:"standin-${index}" x_cf_routererror:"-"${extras} ` +
              `x_b3_traceid:"${trace}" x_b3_spanid:"${trace.slice(16)}" x_b3_parentspanid:"-" b3:"${trace}-${trace.slice(16)}"`;
            log.write(`${line}\n`);
            onLine?.(line);
          }
        });
      },
    );
    upstream.on('error', () => {
      res.writeHead(502).end();
    });
    backendStartUs = nowUs();
    req.pipe(upstream);
  });
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
