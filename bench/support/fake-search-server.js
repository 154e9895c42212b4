// A search server that only serves pages: the bench's documents (half logsearch, half raw lines), as
// OpenSearch answers a point-in-time search_after read, from bytes rendered before it listens. Runs
// in a process of its own so the process measuring paasmon's CPU pays nothing for it.
// Run: node bench/support/fake-search-server.js <documents>   (prints the port on stdout)
import http from 'node:http';
import { logsearchDocument, makeRequests, rawDocument } from '../../test/support/router-docs.js';

const DOCS = Number(process.argv[2] ?? 100_000);
const START = Date.parse('2026-11-21T00:00:00Z');
const SPAN = 3600_000;
const INDEX = 'logs-app-lab-perf-2026.11.21';

/** Each hit as the server writes it (index, id, score, source, sort), rendered once. */
const hits = makeRequests(DOCS, START, SPAN, 'bench').map((r, i) => {
  const source = i % 2 ? rawDocument(r) : logsearchDocument(r);
  const sort = [Date.parse(source['@timestamp']), i];
  return JSON.stringify({ _index: INDEX, _id: `d${i.toString(36)}x`, _score: null, _source: source, sort });
});

/** @param {http.ServerResponse} res @param {unknown} body */
const json = (res, body) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const path = req.url?.split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/')
      return json(res, { version: { distribution: 'opensearch', number: '3.5.0' } });
    if (path.endsWith('/point_in_time')) return json(res, { pit_id: 'pit', _shards: {}, creation_time: 0 });
    if (path !== '/_search') return json(res, {});
    const request = JSON.parse(body);
    const filtered = /[?&]filter_path=/.test(req.url ?? '');
    // The last sort value is the document's place (`_shard_doc`), whether or not a time comes first.
    const from = request.search_after ? Number(request.search_after.at(-1)) + 1 : 0;
    const page = hits.slice(from, from + request.size).join(',');
    const total = request.track_total_hits ? `"total":{"value":${DOCS},"relation":"eq"},` : '';
    if (filtered) return json(res, `{"pit_id":"pit","hits":{${total}"hits":[${page}]}}`);
    json(
      res,
      `{"pit_id":"pit","took":12,"timed_out":false,"_shards":{"total":2,"successful":2,"skipped":0,"failed":0},` +
        `"hits":{${total}"max_score":null,"hits":[${page}]}}`,
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
