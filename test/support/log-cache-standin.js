// A Log Cache stand-in, for tests only (not product code), built from the read API as
// cloudfoundry/log-cache-release documents and implements it: src/README.md (GET /api/v1/read/<source-id>:
// start_time inclusive, end_time exclusive, in ns; envelope_types repeatable; limit default 100, max
// 1000; ascending unless descending=true), src/internal/gateway/gateway.go (protojson, UseProtoNames,
// EmitUnpopulated: int64 as strings, bytes as base64), src/internal/auth/cf_auth_middleware.go
// (no token, a bad token or no access to the source id: 404, never 401/403).
import http from 'node:http';
import { once } from 'node:events';

/**
 * @typedef {object} StoredEnvelope
 * @property {bigint} timestamp ns
 * @property {string} sourceId
 * @property {string} instanceId
 * @property {Record<string, string>} tags
 * @property {string | Buffer} [log] payload text, or bytes as they are (sent base64)
 * @property {Record<string, { unit: string, value: number }>} [gauge]
 */

/** protojson of a loggregator v2 envelope. @param {StoredEnvelope} e */
function toJson(e) {
  return {
    timestamp: String(e.timestamp),
    source_id: e.sourceId,
    instance_id: e.instanceId,
    deprecated_tags: {},
    tags: e.tags,
    ...(e.log !== undefined ? { log: { payload: Buffer.from(e.log).toString('base64'), type: 'OUT' } } : {}),
    ...(e.gauge ? { gauge: { metrics: e.gauge } } : {}),
  };
}

/**
 * @param {{ canRead?: (token: string, sourceId: string) => boolean }} [options] default: any token reads anything
 */
export async function startLogCacheStandin(options = {}) {
  /** @type {StoredEnvelope[]} */
  const envelopes = [];
  /** @type {string[]} every request's path and query, for assertions on paging */
  const requests = [];
  const canRead = options.canRead ?? (() => true);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(url.pathname + url.search);
    const match = /^\/api\/v1\/read\/([^/]+)$/.exec(url.pathname);
    const token = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!match || !token || !canRead(token, decodeURIComponent(match[1]))) {
      res.writeHead(404).end();
      return;
    }
    const sourceId = decodeURIComponent(match[1]);
    const q = url.searchParams;
    const start = BigInt(q.get('start_time') ?? '0');
    const end = q.has('end_time') ? BigInt(/** @type {string} */ (q.get('end_time'))) : BigInt(Date.now()) * 1_000_000n;
    const types = new Set(q.getAll('envelope_types'));
    const limit = Number(q.get('limit') ?? 100);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ error: 'limit must be between 1 and 1000' }));
      return;
    }
    const descending = q.get('descending') === 'true';
    const selected = envelopes
      .filter((e) => e.sourceId === sourceId && e.timestamp >= start && e.timestamp < end)
      .filter((e) => types.size === 0 || (types.has('LOG') && e.log !== undefined) || (types.has('GAUGE') && e.gauge))
      .sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0) * (descending ? -1 : 1))
      .slice(0, limit);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ envelopes: { batch: selected.map(toJson) } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`,
    envelopes,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
