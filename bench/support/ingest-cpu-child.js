// One read of the fake search server's window through a checkout's router-log source, each page
// encoded for COPY as `paasmon ingest` encodes it: prints the CPU this process spent per document.
// Then the floor of that read: the same pages received over HTTP and parsed by JSON.parse, nothing else.
// Run: node <heap flags> bench/support/ingest-cpu-child.js <checkout dir> <port> <reads>
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, port, reads = '1'] = process.argv.slice(2);
const load = (/** @type {string} */ file) => import(pathToFileURL(path.join(dir, file)).href);
const { loadConfig } = await load('collector/config/index.js');
const { createRouterLogSource } = await load('collector/sources/router-logs/index.js');
// A checkout from before the PostgreSQL code was split into parts has the page writer at the top.
const { encodeRecords } = await load('exporters/postgres/sink/page-writer.js').catch(() =>
  load('exporters/postgres/page-writer.js'),
);

const config = loadConfig({ SEARCH_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent' });
const encode = (/** @type {string} */ kind, /** @type {any} */ records, /** @type {number} */ count) =>
  encodeRecords(kind, records, count);
const window = { from: '2026-11-21T00:00:00.000Z', until: '2026-11-21T01:01:00.000Z' };
const agent = new http.Agent({ keepAlive: true });

/**
 * A page of the fake search server as bytes: `size` hits after the first `from`.
 * @param {number} from @param {number} size @returns {Promise<Buffer>}
 */
function page(from, size) {
  const body = JSON.stringify({ size, ...(from > 0 ? { search_after: [0, from - 1] } : {}) });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/_search',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** @type {number[]} */
const perRead = [];
/** @type {number[]} */
const floorPerRead = [];
/** @type {number[]} the documents of each page of paasmon's read, for the floor's pages */
let pageSizes = [];
let bytes = 0;
for (let r = 0; r < Number(reads); r++) {
  const source = createRouterLogSource(config, {});
  const before = process.cpuUsage();
  let documents = 0;
  pageSizes = [];
  for await (const read of source.readPages(window.from, { until: window.until, encode })) {
    documents += read.read;
    if (read.read > 0) pageSizes.push(read.read);
    bytes += read.encoded?.data.length ?? 0;
  }
  const { user, system } = process.cpuUsage(before);
  perRead.push((user + system) / documents);
  await source.close();
}
for (let r = 0; r < Number(reads); r++) {
  const before = process.cpuUsage();
  let [documents, from] = [0, 0];
  for (const size of pageSizes) {
    documents += JSON.parse((await page(from, size)).toString('utf8')).hits.hits.length;
    from += size;
  }
  const { user, system } = process.cpuUsage(before);
  floorPerRead.push((user + system) / documents);
}
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ perRead, floorPerRead, bytes, rssMb: process.resourceUsage().maxRSS / 1024 })}\n`,
);
