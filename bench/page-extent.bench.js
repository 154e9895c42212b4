// What finding a page's days costs before its COPY (exporters/postgres/schema/partitions.js pageExtent, on every
// page the collector, `ingest` and the load generator write): pages of 10,000 encoded router_requests and
// loadgen_requests rows, in process, CPU µs per row; with BENCH_BEFORE_DIR (another checkout) that
// checkout's pageExtent is timed on the same pages, in alternating rounds.
// Run: npm run bench -- page-extent   (BENCH_BEFORE_DIR=<checkout> BENCH_ROUNDS=7)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { binaryRows } from '../exporters/postgres/sink/copy.js';
import { loadgenRowEncoder } from '../exporters/postgres/sink/loadgen-rows.js';
import { pageExtent } from '../exporters/postgres/schema/partitions.js';
import { tableOf } from '../exporters/postgres/rows/tables.js';
import { routerRequestRecord } from '../test/support/router-records.js';

const ROWS = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PASSES = 200;
const BEFORE_DIR = process.env.BENCH_BEFORE_DIR;
const start = Date.parse('2026-11-26T23:59:59Z');

const routerSpec = tableOf('router_request');
const records = Array.from({ length: ROWS }, (_, i) =>
  routerRequestRecord({ receivedAt: `${new Date(start + i).toISOString().slice(0, -1)}123Z` }),
);
const router = { records, encoded: binaryRows(routerSpec, records) };
const encoder = loadgenRowEncoder({ runId: 7, worker: 'bench' });
const page = Buffer.alloc(ROWS * encoder.maxBytes(null));
let filled = 0;
for (let i = 0; i < ROWS; i++)
  filled = encoder.write(page, filled, '0e0e0e0e-aaaa-4bbb-8ccc-000000000000', start + i * 0.37, 1.5, 200, null);
const loadgen = { records: [], encoded: { data: page.subarray(0, filled), rows: ROWS } };
const loadgenSpec = tableOf('loadgen_request');

/** @type {Array<[string, typeof pageExtent]>} */
const builds = [['this checkout', pageExtent]];
if (BEFORE_DIR) {
  // A checkout from before the PostgreSQL code was split into parts has the module at the top.
  const at = (/** @type {string} */ file) => import(pathToFileURL(path.join(BEFORE_DIR, file)).href);
  const before = await at('exporters/postgres/schema/partitions.js').catch(() =>
    at('exporters/postgres/partitions.js'),
  );
  builds.unshift(['before', before.pageExtent]);
}

/** CPU µs per row of PASSES calls of `extent` (a page each). @param {() => unknown} extent */
function timed(extent) {
  const before = process.cpuUsage();
  for (let pass = 0; pass < PASSES; pass++) extent();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / PASSES / ROWS;
}

/** @type {Record<string, { router: number[], loadgen: number[] }>} */
const figures = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (const [label, extentOf] of round % 2 ? builds : [...builds].reverse()) {
    const routerUs = timed(() => extentOf(routerSpec, router));
    const loadgenUs = timed(() => extentOf(loadgenSpec, loadgen));
    // Round 0 warms the code up; it is not counted.
    if (round === 0) continue;
    figures[label] ??= { router: [], loadgen: [] };
    figures[label].router.push(routerUs);
    figures[label].loadgen.push(loadgenUs);
  }
}
const median = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`pageExtent of pages of ${ROWS} encoded rows, CPU µs per row, median of ${ROUNDS} rounds of ${PASSES}:`);
for (const [label] of builds) {
  const { router: r, loadgen: l } = figures[label];
  console.log(`${label.padEnd(14)} router_requests ${median(r).toFixed(3)}, loadgen_requests ${median(l).toFixed(3)}`);
}
if (BEFORE_DIR) {
  const ratio = (/** @type {'router' | 'loadgen'} */ kind) =>
    (median(figures['this checkout'][kind]) / median(figures.before[kind])).toFixed(2);
  console.log(`this checkout / before: router_requests ${ratio('router')}, loadgen_requests ${ratio('loadgen')}`);
}
