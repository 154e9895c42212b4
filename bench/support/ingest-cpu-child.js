// One read of the fake search server's window through a checkout's router-log source, each page
// encoded for COPY as `paasmon ingest` encodes it: prints the CPU this process spent per document.
// Run: node <heap flags> bench/support/ingest-cpu-child.js <checkout dir> <port> <reads>
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, port, reads = '1'] = process.argv.slice(2);
const load = (/** @type {string} */ file) => import(pathToFileURL(path.join(dir, file)).href);
const { loadConfig } = await load('collector/config/index.js');
const { createRouterLogSource } = await load('collector/sources/router-logs/index.js');
const { encodeRecords } = await load('exporters/postgres/page-writer.js');

const config = loadConfig({ SEARCH_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent' });
const encode = (/** @type {string} */ kind, /** @type {any} */ records, /** @type {number} */ count) =>
  encodeRecords(kind, records, count);
const window = { from: '2026-11-21T00:00:00.000Z', until: '2026-11-21T01:01:00.000Z' };
/** @type {number[]} */
const perRead = [];
let bytes = 0;
for (let r = 0; r < Number(reads); r++) {
  const source = createRouterLogSource(config, {});
  const before = process.cpuUsage();
  let documents = 0;
  for await (const page of source.readPages(window.from, { until: window.until, encode })) {
    documents += page.read;
    bytes += page.encoded?.data.length ?? 0;
  }
  const { user, system } = process.cpuUsage(before);
  perRead.push((user + system) / documents);
  await source.close();
}
process.stdout.write(`${JSON.stringify({ perRead, bytes, rssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
