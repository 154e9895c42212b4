// An HTTP proxy in front of a real server that can fail, stall or meddle with chosen requests.
import http from 'node:http';
import { once } from 'node:events';

/**
 * @typedef {object} ProxiedRequest
 * @property {string} method
 * @property {string} url
 * @property {string} body
 * @property {number} count
 * @property {import('node:http').IncomingHttpHeaders} headers
 *
 * @typedef {'pass' | 'hang' | 'lose-answer' | { status: number, body: string }} Verdict
 *   lose-answer: the request reaches the server, its answer never reaches the client
 */

/**
 * @param {string} target base URL
 * @param {(req: ProxiedRequest) => Promise<Verdict> | Verdict} decide
 */
export async function startFaultProxy(target, decide) {
  let count = 0;
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    count += 1;
    const verdict = await decide({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      body,
      count,
      headers: req.headers,
    });
    if (verdict === 'hang') return; // never answers: the client's timeout must fire
    if (verdict !== 'pass' && verdict !== 'lose-answer') {
      res.writeHead(verdict.status, { 'Content-Type': 'application/json' }).end(verdict.body);
      return;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: { 'Content-Type': String(req.headers['content-type'] ?? 'application/json') },
      body: body || undefined,
    });
    if (verdict === 'lose-answer') {
      await upstream.text();
      return;
    }
    res
      .writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' })
      .end(await upstream.text());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`,
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
