// paasmon at scale: a database grown to BENCH_SCALE_ROUTER_ROWS router rows and
// BENCH_SCALE_LOADGEN_ROWS load-generator rows over BENCH_SCALE_DAYS day partitions (server-side
// INSERT ... SELECT generate_series), next to one holding only its last day (today, where the writes
// land, with its runs, whose figures an ingest stores again): keyed COPY and `paasmon ingest --file`
// rates into each, the report data and run_summary of one BENCH_RUN_REQUESTS-request run in each,
// `paasmon prune` of BENCH_PRUNE_DAYS days with the bytes on disk before and after, and bytes on
// disk per stored request (table + indexes) next to its raw CSV size. The write rates are timed in
// BENCH_SCALE_ROUNDS rounds, one day and grown one after the other (the order turning each round).
// With BENCH_PRUNE_CACHED=1 (the default) the history holds BENCH_PRUNE_DAYS more days, pruned
// first as the bench left them (in the page cache); the goal's prune then drops the oldest
// BENCH_PRUNE_DAYS of the BENCH_SCALE_DAYS left, their pages given back to the kernel first.
// Run: npm run bench -- scale   (BENCH_SCALE_ROUTER_ROWS=20000000 BENCH_SCALE_LOADGEN_ROWS=20000000
// BENCH_SCALE_DAYS=30 BENCH_PRUNE_DAYS=10 BENCH_COPY_ROWS=200000 BENCH_RUN_REQUESTS=10000 BENCH_REPEAT=5
// BENCH_SCALE_ROUNDS=5 BENCH_PRUNE_CACHED=1)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import copyStreams from 'pg-copy-streams';
import pino from 'pino';
import { compareRuns } from '../collector/use-cases/compare-runs.js';
import { binaryRows, copyInsert, inTransaction } from '../exporters/postgres/sink/copy.js';
import { migrate } from '../exporters/postgres/schema/migrate.js';
import { refreshRunFigures } from '../exporters/postgres/schema/run-figures.js';
import { DEFAULT_TRIM } from '../report/default-trim.js';
import { TABLE_OF_KIND } from '../exporters/postgres/rows/tables.js';
import { runCli } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { seedRun } from '../test/support/report-runs.js';
import { gorouterLine, makeRequests, routerRecord } from '../test/support/router-docs.js';
import { medianMs } from './support/median.js';
import { grow } from './support/scale-history.js';
import { timePrune } from './support/scale-prune.js';

const env = (/** @type {string} */ name, /** @type {number} */ fallback) => Number(process.env[name] ?? fallback);
const ROUTER_ROWS = env('BENCH_SCALE_ROUTER_ROWS', 20_000_000);
const LOADGEN_ROWS = env('BENCH_SCALE_LOADGEN_ROWS', 20_000_000);
const DAYS = env('BENCH_SCALE_DAYS', 30);
const PRUNE_DAYS = env('BENCH_PRUNE_DAYS', 10);
const COPY_ROWS = env('BENCH_COPY_ROWS', 200_000);
const RUN_REQUESTS = env('BENCH_RUN_REQUESTS', 10_000);
const REPEAT = env('BENCH_REPEAT', 5);
const ROUNDS = env('BENCH_SCALE_ROUNDS', 5);
const CACHED_CASE = process.env.BENCH_PRUNE_CACHED !== '0';
/** Days of history: the cached setting's prune takes the oldest PRUNE_DAYS of them first. */
const GROWN_DAYS = DAYS + (CACHED_CASE ? PRUNE_DAYS : 0);
/** History days loaded at once. */
const JOBS = env('BENCH_SCALE_JOBS', 2);
const DAY_MS = 86_400_000;
const silent = pino({ level: 'silent' });
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;

/** `REPEAT` timings' median. @param {() => Promise<unknown>} work @param {() => Promise<unknown>} [prepare] */
const median = (work, prepare) => medianMs(work, REPEAT, prepare);

/** @param {number} bytes */
const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;

/** Router records for COPY, of today, keys of their own. @param {string} seed */
function copyRecords(seed) {
  return makeRequests(COPY_ROWS, today + 3_600_000, 3_600_000, seed).map(routerRecord);
}

/**
 * Keyed COPY rate and `paasmon ingest --file` rate of one round, rows of keys of their own.
 * @param {Awaited<ReturnType<typeof startTestDatabase>>} db @param {string} seed
 */
async function writeRates(db, seed) {
  const spec = TABLE_OF_KIND.router_request;
  const records = copyRecords(seed);
  const copyStarted = performance.now();
  for (let i = 0; i < records.length; i += 5000) {
    const batch = binaryRows(spec, records.slice(i, i + 5000));
    await inTransaction(db.pool, (client) => copyInsert(client, spec, /** @type {any} */ (batch), { readBack: false }));
  }
  const copyRate = records.length / ((performance.now() - copyStarted) / 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-scale-'));
  try {
    const file = path.join(dir, 'gorouter.log');
    const lines = makeRequests(COPY_ROWS, today + 7_200_000, 3_600_000, `ingest ${seed}`).map(gorouterLine);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const ingestStarted = performance.now();
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
    const ingest = await runCli(['ingest', '--file', file, '--app', 'shop'], env, { timeoutMs: 1_800_000 });
    if (ingest.code !== 0) throw new Error(`paasmon ingest failed: ${ingest.stderr}`);
    return { copyRate, ingestRate: lines.length / ((performance.now() - ingestStarted) / 1000) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The report data and run_summary of one new run: the figures to compare between the one-day and
 * the grown database.
 * @param {Awaited<ReturnType<typeof startTestDatabase>>} db @param {string} name
 */
async function readTimes(db, name) {
  const runId = await seedRun(db.query, {
    label: `measured ${name}`,
    // An app of its own: the history's samples and router records of 'shop' would change its figures.
    app: 'measured',
    instances: 2,
    coresPerInstance: 2,
    start: new Date(today + 10_800_000),
    spanS: 60,
    successful: RUN_REQUESTS - 10,
    serverErrors: 10,
    durationSql: '1 + (i::bigint * 7919 % 1000) / 50.0',
    cpuPolls: [150, 170],
  });
  await db.query('ANALYZE');
  const reportMs = await median(() => compareRuns(db.pool, [runId], { recompute: true }));
  // Computed each time: its stored figures stale (rows written with SQL mark every run).
  const summaryMs = await median(
    () => db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]),
    () => db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]),
  );
  if (process.env.BENCH_SCALE_EXPLAIN) {
    const plan = await db.query('EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM run_summary WHERE run_id = $1', [runId]);
    console.log(`run_summary in the ${name} database:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
  return { reportMs, summaryMs };
}

/** @param {number[]} values */
const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The write rates in ROUNDS rounds, one-day and grown back to back (who goes first turning each
 * round): per round the ratio grown / one-day, then the median and the spread of those ratios.
 * @param {any} oneDayDb @param {any} grownDb
 */
async function writeRounds(oneDayDb, grownDb) {
  /** @type {any[]} */
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['oneDay', 'grown'] : ['grown', 'oneDay'];
    /** @type {any} */
    const rates = {};
    for (const name of order)
      rates[name] = await writeRates(name === 'oneDay' ? oneDayDb : grownDb, `${name} ${round}`);
    rounds.push(rates);
  }
  return ['copyRate', 'ingestRate'].map((key) => {
    const ratios = rounds.map((r) => r.grown[key] / r.oneDay[key]);
    return {
      oneDay: middle(rounds.map((r) => r.oneDay[key])),
      grown: middle(rounds.map((r) => r.grown[key])),
      ratio: middle(ratios),
      spread: `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`,
    };
  });
}

/** Bytes of one table's rows as CSV (COPY ... TO STDOUT), sampled. @param {any} db @param {string} table */
async function csvBytesPerRow(db, table) {
  const client = await db.pool.connect();
  try {
    let bytes = 0;
    const stream = client.query(copyStreams.to(`COPY (SELECT * FROM ${table} LIMIT 100000) TO STDOUT (FORMAT csv)`));
    for await (const chunk of stream) bytes += chunk.length;
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT 100000) x`);
    return bytes / rows[0].n;
  } finally {
    client.release();
  }
}

const oneDay = await startTestDatabase({ bulk: true });
const grown = await startTestDatabase({ bulk: true });
try {
  await migrate(oneDay.pool, silent);
  await migrate(grown.pool, silent);
  const growStarted = performance.now();
  const perDay = (/** @type {number} */ rows) => Math.round((rows / DAYS) * GROWN_DAYS);
  const size = { routerRows: perDay(ROUTER_ROWS), loadgenRows: perDay(LOADGEN_ROWS), days: GROWN_DAYS };
  await grow(grown, { ...size, jobs: JOBS, today });
  // The baseline: the same today (its runs, rows and samples), without the days before it.
  await grow(oneDay, {
    routerRows: Math.round(ROUTER_ROWS / DAYS),
    loadgenRows: Math.round(LOADGEN_ROWS / DAYS),
    days: 1,
    jobs: 1,
    today,
  });
  const sizes = (
    await grown.query(
      `SELECT (SELECT count(*) FROM router_requests)::bigint AS router,
              (SELECT count(*) FROM loadgen_requests)::bigint AS loadgen,
              (SELECT count(*) FROM instance_samples)::bigint AS samples,
              (SELECT count(*) FROM paasmon_partitions()) AS partitions, pg_database_size(current_database()) AS bytes`,
    )
  ).rows[0];
  console.log(
    `grown database: ${sizes.router} router rows, ${sizes.loadgen} load-generator rows, ${sizes.samples} instance ` +
      `samples in ${sizes.partitions} partitions over ${GROWN_DAYS} days, ${mib(Number(sizes.bytes))} on disk ` +
      `(built in ${((performance.now() - growStarted) / 1000).toFixed(0)} s)`,
  );
  const perRequest = (
    await grown.query(
      `SELECT sum(bytes) FILTER (WHERE parent = 'router_requests') AS router,
              sum(bytes) FILTER (WHERE parent = 'loadgen_requests') AS loadgen FROM paasmon_partitions()`,
    )
  ).rows[0];
  const csvRouter = await csvBytesPerRow(grown, 'router_requests');
  const csvLoadgen = await csvBytesPerRow(grown, 'loadgen_requests');

  const [copy, ingest] = await writeRounds(oneDay, grown);
  const a = await readTimes(oneDay, 'one day');
  const b = await readTimes(grown, 'grown');
  const rows = [
    ['keyed COPY, router rows/s', copy.oneDay, copy.grown, copy.ratio, '>= 0.9', copy.spread],
    ['paasmon ingest --file, lines/s', ingest.oneDay, ingest.grown, ingest.ratio, '>= 0.9', ingest.spread],
    [`report data of a ${RUN_REQUESTS}-request run, ms`, a.reportMs, b.reportMs, b.reportMs / a.reportMs, '<= 1.5'],
    ['run_summary of that run, ms', a.summaryMs, b.summaryMs, b.summaryMs / a.summaryMs, '<= 1.5'],
  ];
  console.log(`\n${'what'.padEnd(44)}${'one day'.padStart(12)}${'grown'.padStart(12)}${'ratio'.padStart(8)}  goal`);
  for (const [what, x, y, ratio, goal, spread] of rows) {
    const met = String(goal).startsWith('>=') ? Number(ratio) >= 0.9 : Number(ratio) <= 1.5;
    console.log(
      `${String(what).padEnd(44)}${Number(x).toFixed(0).padStart(12)}${Number(y).toFixed(0).padStart(12)}` +
        `${Number(ratio).toFixed(2).padStart(8)}  ${goal} ${met ? 'met' : 'NOT met'}` +
        `${spread ? ` (round ratios ${spread})` : ''}`,
    );
  }
  console.log(
    `writes: median of ${ROUNDS} rounds of ${COPY_ROWS} rows each, the ratio the median of each round's; ` +
      `reads: median of ${REPEAT} after a warm-up`,
  );

  // The days to prune: their runs' figures are stored first (as the commands that end runs do), then timed.
  const limitOf = (/** @type {number} */ daysLeft) => new Date(today - (daysLeft - 1) * DAY_MS).toISOString();
  const goalLimit = limitOf(DAYS - PRUNE_DAYS);
  const { rows: old } = await grown.query('SELECT id FROM test_runs WHERE started_at < $1 ORDER BY id', [goalLimit]);
  const figuresStarted = performance.now();
  await refreshRunFigures(
    grown.pool,
    old.map((r) => Number(r.id)),
    [DEFAULT_TRIM],
    { ended: false },
  );
  console.log(
    `\nthe figures of the ${old.length} runs to prune stored beforehand in ` +
      `${((performance.now() - figuresStarted) / 1000).toFixed(0)} s`,
  );
  const currentMs = await median(() =>
    grown.query('SELECT count(*) FROM run_figures WHERE run_id = ANY ($1) AND NOT stale', [old.map((r) => r.id)]),
  );
  console.log(`the check that those runs' stored figures are current: ${currentMs.toFixed(1)} ms`);
  if (CACHED_CASE)
    await timePrune(grown, {
      limit: limitOf(GROWN_DAYS - PRUNE_DAYS),
      uncache: false,
      label: `of the oldest ${PRUNE_DAYS} days, cached (the previous setting)`,
    });
  const goalPruneMs = await timePrune(grown, {
    limit: goalLimit,
    uncache: true,
    label: `of the oldest ${PRUNE_DAYS} of ${DAYS} days, not cached (as in a real database: the goal)`,
  });
  const routerBytes = Number(perRequest.router) / Number(sizes.router);
  const loadgenBytes = Number(perRequest.loadgen) / Number(sizes.loadgen);
  console.log(
    `\nbytes on disk per stored request (table + indexes): router ${routerBytes.toFixed(0)} ` +
      `(raw CSV ${csvRouter.toFixed(0)}), load generator ${loadgenBytes.toFixed(0)} (raw CSV ${csvLoadgen.toFixed(0)})`,
  );
  console.log(`machine load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(
    `\nGOAL paasmon prune of ${PRUNE_DAYS} days, not cached, whole process < 2000 ms: ` +
      `${goalPruneMs.toFixed(0)} ms, ${goalPruneMs < 2000 ? 'MET' : 'NOT MET'}`,
  );
} finally {
  await oneDay.stop();
  await grown.stop();
}
