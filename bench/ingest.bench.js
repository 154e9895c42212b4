// Router-log ingest at scale: 1,000,000 RTR documents (half logsearch, half raw lines) in a real
// OpenSearch, read into a real PostgreSQL by the `paasmon ingest` process. Baselines: the search
// server's own read rate (PIT + search_after, no parsing) and a keyed COPY of the same rows.
// Run: npm run bench -- ingest   (BENCH_DOCS to change the count)
import os from 'node:os';
import pino from 'pino';
import { binaryRows, copyInsert, copyInsertCounted, inTransaction } from '../exporters/postgres/sink/copy.js';
import { tableOf } from '../exporters/postgres/rows/tables.js';

const ROUTER_REQUESTS = tableOf('router_request');
import { migrate } from '../exporters/postgres/schema/migrate.js';
import { parseGorouterLine } from '../collector/sources/gorouter/parse.js';
import { startCli } from '../test/support/cli.js';
import { exitWithPeakRss } from './support/peak-rss.js';
import { postgresPid, settledTreeCpuSeconds, treeCpuSeconds } from './support/process-cpu.js';
import { startTestDatabase } from '../test/support/database.js';
import {
  LOGSEARCH_TEMPLATE,
  gorouterLine,
  logsearchDocument,
  makeRequests,
  rawDocument,
} from '../test/support/router-docs.js';
import { startSearchNode } from '../test/support/search-node.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 1_000_000);
const START = Date.parse('2026-11-21T00:00:00Z');
const SPAN = 3600_000;
const from = new Date(START).toISOString();
const to = new Date(START + SPAN + 60_000).toISOString();
const log = pino({ level: 'silent' });
const WARM_UP_READS = 8;
/**
 * Uncompressed, as paasmon asks: gzip (fetch's default) costs the search server more CPU than the
 * read itself and halves the rate (an OpenSearch warmed by dozens of reads: 6.2-6.4 us of its CPU
 * per document and 108,900-113,900 docs/s uncompressed, 10.0-10.1 us and 59,700-60,100 gzipped).
 */
const IDENTITY = { 'Accept-Encoding': 'identity' };

const search = await startSearchNode('opensearch');
const db = await startTestDatabase();
try {
  await migrate(db.pool, log);
  await search.request('PUT', '/_index_template/logs-app', {
    index_patterns: LOGSEARCH_TEMPLATE.index_patterns,
    template: {
      settings: { ...LOGSEARCH_TEMPLATE.settings, refresh_interval: '-1' },
      mappings: LOGSEARCH_TEMPLATE.mappings,
    },
  });
  const started = performance.now();
  const chunk = 50_000;
  for (let i = 0; i < DOCS; i += chunk) {
    const requests = makeRequests(
      Math.min(chunk, DOCS - i),
      START + (i / DOCS) * SPAN,
      (chunk / DOCS) * SPAN,
      `bench-${i}`,
    );
    await search.bulk(
      'logs-app-lab-perf-2026.11.21',
      requests.map((r, j) => (j % 2 ? rawDocument(r) : logsearchDocument(r))),
    );
  }
  // Merged into one segment before anything is measured: otherwise the search server merges the
  // fresh segments in the background while the reads below run (twice the CPU per document).
  const merged = await search.request('POST', '/logs-app-lab-perf-2026.11.21/_forcemerge?max_num_segments=1');
  if (merged.status !== 200) throw new Error(`force merge answered ${merged.status}: ${JSON.stringify(merged.body)}`);
  console.log(
    `indexed ${DOCS} documents in ${((performance.now() - started) / 1000).toFixed(1)} s (setup, not measured)`,
  );

  // Baseline 1: the search server's read rate, PIT + search_after, pages of 5000, uncompressed.
  // Measured warm, as a cluster that has been running for a while is: a fresh search server's JIT
  // compiles the read path, and its CPU per document falls read after read (16.5, 11.3, 10.0, 9.0,
  // 8.2, 8.5 us in one run; it goes on falling slowly over dozens of reads). The warm-up reads go
  // on until it falls by less than 5 %; the read after them counts.
  /** @param {object[]} sort */
  const searchRead = async (sort) => {
    const readStarted = performance.now();
    const cpuBefore = treeCpuSeconds(/** @type {number} */ (search.pid));
    const pit = (await search.request('POST', '/logs-app-*/_search/point_in_time?keep_alive=2m')).body.pit_id;
    let after;
    let read = 0;
    for (;;) {
      const { body } = await search.request(
        'POST',
        '/_search',
        {
          size: 5000,
          query: { range: { '@timestamp': { gte: from, lt: to } } },
          sort,
          pit: { id: pit, keep_alive: '2m' },
          ...(after ? { search_after: after } : {}),
        },
        undefined,
        IDENTITY,
      );
      read += body.hits.hits.length;
      if (body.hits.hits.length < 5000) break;
      after = body.hits.hits[body.hits.hits.length - 1].sort;
    }
    await search.request('DELETE', '/_search/point_in_time', { pit_id: [pit] });
    const cpuUs = ((treeCpuSeconds(/** @type {number} */ (search.pid)) - cpuBefore) / read) * 1e6;
    return { read, rate: read / ((performance.now() - readStarted) / 1000), cpuUs };
  };
  // Warm-up reads in both orders (the time order of the before build, the index order paasmon now
  // reads each stretch in: each path compiled by the search server's JIT before it is measured), until
  // the search server's CPU per document of both stops falling (less than 5 % below the read before),
  // at most WARM_UP_READS.
  const TIME_ORDER = [{ '@timestamp': 'asc' }, { _shard_doc: 'asc' }];
  const INDEX_ORDER = [{ _index: 'asc' }, { _shard_doc: 'asc' }];
  /** @type {Array<Record<'time' | 'index', { rate: number, cpuUs: number }>>} */
  const warmUps = [];
  const falling = (/** @type {'time' | 'index'} */ order) =>
    warmUps.length < 2 || warmUps[warmUps.length - 1][order].cpuUs < 0.95 * warmUps[warmUps.length - 2][order].cpuUs;
  do warmUps.push({ time: await searchRead(TIME_ORDER), index: await searchRead(INDEX_ORDER) });
  while (warmUps.length < WARM_UP_READS && (falling('time') || falling('index')));
  const warmUpFigures = warmUps.map((w) => `${w.time.cpuUs.toFixed(1)} / ${w.index.cpuUs.toFixed(1)} us`).join(', ');
  console.log(`search server warm-up:   ${warmUpFigures} per document, time / index order (not measured)`);
  const { read, rate: searchRate, cpuUs: searchCpuUs } = await searchRead(TIME_ORDER);
  console.log(
    `search server read:      ${read} documents, ${Math.round(searchRate)} docs/s, ` +
      `${searchCpuUs.toFixed(1)} us of the search server's CPU per document`,
  );
  // The same read in index order, as paasmon reads each stretch of a window: the server's fastest.
  const byIndex = await searchRead(INDEX_ORDER);
  console.log(
    `search read, index order: ${byIndex.read} documents, ${Math.round(byIndex.rate)} docs/s, ` +
      `${byIndex.cpuUs.toFixed(1)} us of the search server's CPU per document`,
  );
  const indexOrderRate = byIndex.rate;

  // Baseline 2: keyed COPY (staging + INSERT .. ON CONFLICT) of the same rows, batches of 5000,
  // encoded as paasmon encodes them (binary tuples) before the clock starts, the inserted rows
  // counted and not read back: the baseline, and what `paasmon ingest` falls back to when a
  // page holds a row already stored. Then the counted COPY, paasmon's way for a page of new rows.
  /** @type {import('../core/types.js').RouterRequest[]} */
  const rows = [];
  for (let i = 0; i < DOCS; i += chunk) {
    for (const r of makeRequests(
      Math.min(chunk, DOCS - i),
      START + (i / DOCS) * SPAN,
      (chunk / DOCS) * SPAN,
      `bench-${i}`,
    )) {
      const parsed = parseGorouterLine(gorouterLine(r), { correlationField: 'x_correlation_id' });
      if (parsed.ok) rows.push(parsed.record);
    }
  }
  /**
   * Every row in batches of 5000, into an empty table: keyed (through the staging table), or as
   * paasmon writes a page of new rows that it only counts (a plain COPY under a savepoint).
   * @param {'keyed' | 'counted'} how @returns {Promise<number>} rows/s
   */
  const copyRateOf = async (how) => {
    await db.query('TRUNCATE router_requests');
    const batches = [];
    for (let i = 0; i < rows.length; i += 5000)
      batches.push(/** @type {any} */ (binaryRows(ROUTER_REQUESTS, rows.slice(i, i + 5000))));
    const copyStarted = performance.now();
    for (const batch of batches)
      await inTransaction(db.pool, async (client) => {
        if (how === 'keyed') await copyInsert(client, ROUTER_REQUESTS, batch, { readBack: false });
        else await copyInsertCounted(client, ROUTER_REQUESTS, batch);
      });
    return rows.length / ((performance.now() - copyStarted) / 1000);
  };
  const copyRate = await copyRateOf('keyed');
  console.log(`PostgreSQL keyed COPY:   ${rows.length} rows, ${Math.round(copyRate)} rows/s`);
  const countedRate = await copyRateOf('counted');
  console.log(
    `PostgreSQL counted COPY: ${rows.length} rows, ${Math.round(countedRate)} rows/s ` +
      '(a plain COPY under a savepoint, as paasmon writes a page of new rows)',
  );
  // What each secondary index of router_requests costs the keyed COPY (the unique key is the
  // dedup itself and stays).
  for (const [index, columns] of [
    ['router_requests_correlation_id', 'USING hash (correlation_id)'],
    ['router_requests_app_received_at', '(app_name, received_at)'],
  ]) {
    await db.query(`DROP INDEX ${index}`);
    const without = await copyRateOf('keyed');
    await db.query('TRUNCATE router_requests');
    await db.query(`CREATE INDEX ${index} ON router_requests ${columns}`);
    console.log(
      `  without ${index}: ${Math.round(without)} rows/s (the index costs ` +
        `${(100 * (1 - copyRate / without)).toFixed(0)} % of the COPY rate)`,
    );
  }
  rows.length = 0;
  await db.query('TRUNCATE router_requests');

  // paasmon itself, as a process: `paasmon ingest --from --to`; with BENCH_BEFORE_CLI (another
  // checkout's collector/cli.js), that one first, then this one, into an emptied table each time.
  /** @type {Array<[string, string | undefined]>} */
  const clis = [['paasmon', undefined]];
  if (process.env.BENCH_BEFORE_CLI) clis.unshift(['before', process.env.BENCH_BEFORE_CLI]);
  /** @type {Record<string, number>} paasmon's CPU per document, us */
  const cpuPerDoc = {};
  for (const [label, cli] of clis) {
    await db.query('TRUNCATE router_requests');
    await db.query('DELETE FROM ingest_checkpoints');
    cpuPerDoc[label] = await measureIngest(label, cli, { searchRate, indexOrderRate, copyRate, countedRate });
  }
  // Issue 30 goal 1: at most half the CPU per document of the before build (b0f1632), measured in the same run.
  if (cpuPerDoc.before) {
    const [after, before] = [cpuPerDoc.paasmon, cpuPerDoc.before];
    console.log(
      `CPU per document vs half of the before build: ${after.toFixed(1)} us vs ${(before / 2).toFixed(1)} us, ` +
        `paasmon / before = ${(after / before).toFixed(2)} (goal <= 0.50: ${after <= before / 2 ? 'met' : 'not met'})`,
    );
  }
} finally {
  await search.stop();
  await db.stop();
}

/**
 * One `paasmon ingest --from --to` of the window, as a process, and its figures.
 * @param {string} label @param {string | undefined} cli another checkout's binary
 * @param {{ searchRate: number, indexOrderRate: number, copyRate: number, countedRate: number }} baselines
 * @returns {Promise<number>} paasmon's CPU per document, us
 */
async function measureIngest(label, cli, { searchRate, indexOrderRate, copyRate, countedRate }) {
  const name = `${label} ingest:`.padEnd(25);
  // The CPU each process spends, per document: paasmon (its own count at exit), PostgreSQL and the
  // search server (their process trees, from /proc). On a machine where all three share the cores,
  // their sum is what the rate can reach.
  const pgPid = postgresPid(db.port);
  const [pgBefore, searchBefore] = [
    await settledTreeCpuSeconds(pgPid),
    treeCpuSeconds(/** @type {number} */ (search.pid)),
  ];
  const started = performance.now();
  const ingest = startCli(
    ['ingest', '--from', from, '--to', to],
    {
      DATABASE_URL: db.url,
      SEARCH_URL: search.url,
      LOG_LEVEL: 'info',
      NODE_OPTIONS: `--import=${new URL('./support/cpu-at-exit.js', import.meta.url)}`,
    },
    cli ? { cli } : {},
  );
  const peakMb = await exitWithPeakRss(ingest);
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = {
    paasmon: Number(/cpu-seconds ([\d.]+)/.exec(ingest.output.stderr)?.[1]),
    postgres: (await settledTreeCpuSeconds(pgPid)) - pgBefore,
    search: treeCpuSeconds(/** @type {number} */ (search.pid)) - searchBefore,
  };
  const stored = (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
  const rate = DOCS / seconds;
  console.log(`${name}${ingest.output.stdout.trim()}`);
  console.log(
    `${name}${stored} rows stored, ${seconds.toFixed(1)} s, ` +
      `${Math.round(rate)} docs/s end to end, peak RSS ${peakMb.toFixed(1)} MB`,
  );
  const busy = JSON.parse(/"busyMs":({[^}]*})/.exec(ingest.output.stderr)?.[1] ?? '{}');
  console.log(
    `${label} stages:`.padEnd(25) +
      `busy ${(busy.source / 1000).toFixed(1)} s reading + parsing + encoding pages, ` +
      `${(busy.write / 1000).toFixed(1)} s writing pages, of ${(busy.wall / 1000).toFixed(1)} s (they overlap; ` +
      `the busiest is the limit)`,
  );
  const perDoc = (/** @type {number} */ seconds) => ((seconds / DOCS) * 1e6).toFixed(1);
  const { paasmon, postgres, search: searchServer } = cpuSeconds;
  console.log(
    `${label} CPU:`.padEnd(25) +
      `${perDoc(paasmon)} us/doc paasmon + ${perDoc(postgres)} PostgreSQL + ` +
      `${perDoc(searchServer)} search server = ${perDoc(paasmon + postgres + searchServer)} us/doc`,
  );
  // Where the three processes share the cores, their CPU per document bounds the rate.
  const cores = os.availableParallelism();
  const cpuBound = (cores * DOCS) / (paasmon + postgres + searchServer);
  console.log(
    `at these CPU costs, ${cores} cores allow at most ${Math.round(cpuBound)} docs/s; ${label} reaches ` +
      `${(rate / cpuBound).toFixed(2)} of that`,
  );
  console.log(
    `${label} / min(search read, keyed COPY) = ${(rate / Math.min(searchRate, copyRate)).toFixed(2)}   (goal >= 0.55)`,
  );
  console.log(`${label} / min(search read, counted COPY) = ${(rate / Math.min(searchRate, countedRate)).toFixed(2)}`);
  console.log(
    `${label} / min(search read in index order, keyed COPY) = ` +
      `${(rate / Math.min(indexOrderRate, copyRate)).toFixed(2)}`,
  );
  return (paasmon / DOCS) * 1e6;
}
