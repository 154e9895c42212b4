// paasmon at scale: a database grown to BENCH_SCALE_ROUTER_ROWS router rows and
// BENCH_SCALE_LOADGEN_ROWS load-generator rows over BENCH_SCALE_DAYS day partitions (server-side
// INSERT ... SELECT generate_series), next to an empty one: keyed COPY and `paasmon ingest --file`
// rates into each, the report data and run_summary of one BENCH_RUN_REQUESTS-request run in each,
// `paasmon prune` of BENCH_PRUNE_DAYS days with the bytes on disk before and after, and bytes on
// disk per stored request (table + indexes) next to its raw CSV size.
// Run: npm run bench -- scale   (BENCH_SCALE_ROUTER_ROWS=20000000 BENCH_SCALE_LOADGEN_ROWS=20000000
// BENCH_SCALE_DAYS=30 BENCH_PRUNE_DAYS=10 BENCH_COPY_ROWS=200000 BENCH_RUN_REQUESTS=10000 BENCH_REPEAT=5)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import copyStreams from 'pg-copy-streams';
import pino from 'pino';
import { compareRuns } from '../collector/commands/report.js';
import { binaryRows, copyInsert, inTransaction } from '../exporters/postgres/copy.js';
import { migrate } from '../exporters/postgres/migrate.js';
import { TABLE_OF_KIND } from '../exporters/postgres/tables.js';
import { runCli } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { seedRun } from '../test/support/report-runs.js';
import { gorouterLine, makeRequests } from '../test/support/router-docs.js';
import { grow } from './support/scale-history.js';
import { relationSizes, timeTruncate } from './support/truncate-baseline.js';

const env = (/** @type {string} */ name, /** @type {number} */ fallback) => Number(process.env[name] ?? fallback);
const ROUTER_ROWS = env('BENCH_SCALE_ROUTER_ROWS', 20_000_000);
const LOADGEN_ROWS = env('BENCH_SCALE_LOADGEN_ROWS', 20_000_000);
const DAYS = env('BENCH_SCALE_DAYS', 30);
const PRUNE_DAYS = env('BENCH_PRUNE_DAYS', 10);
const COPY_ROWS = env('BENCH_COPY_ROWS', 200_000);
const RUN_REQUESTS = env('BENCH_RUN_REQUESTS', 10_000);
const REPEAT = env('BENCH_REPEAT', 5);
/** History days loaded at once. */
const JOBS = env('BENCH_SCALE_JOBS', 2);
const DAY_MS = 86_400_000;
const silent = pino({ level: 'silent' });
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;

/** Median wall time of REPEAT calls after one warm-up, ms. @param {() => Promise<unknown>} work */
async function median(work) {
  await work();
  const times = [];
  for (let i = 0; i < REPEAT; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(REPEAT / 2)];
}

/** @param {number} bytes */
const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;

/** Router records for COPY, of today, keys of their own. @param {string} seed */
function copyRecords(seed) {
  return makeRequests(COPY_ROWS, today + 3_600_000, 3_600_000, seed).map((r) => ({
    kind: 'router_request',
    receivedAt: new Date(Math.floor(r.receivedUs / 1000)),
    appGuid: r.appGuid,
    appName: r.app,
    appIndex: r.appIndex,
    method: 'GET',
    path: r.path,
    status: r.status,
    responseTimeMs: r.responseUs / 1000,
    gorouterTimeMs: r.gorouterUs / 1000,
    vcapRequestId: r.vcapRequestId,
    correlationId: r.id,
  }));
}

/**
 * Keyed COPY rate, `paasmon ingest --file` rate, report data and run_summary of one run: the
 * figures to compare between the empty and the grown database.
 * @param {Awaited<ReturnType<typeof startTestDatabase>>} db @param {string} name
 */
async function measure(db, name) {
  const spec = TABLE_OF_KIND.router_request;
  const records = copyRecords(name);
  const copyStarted = performance.now();
  for (let i = 0; i < records.length; i += 5000) {
    const batch = binaryRows(spec, records.slice(i, i + 5000));
    await inTransaction(db.pool, (client) => copyInsert(client, spec, /** @type {any} */ (batch), { readBack: false }));
  }
  const copyRate = records.length / ((performance.now() - copyStarted) / 1000);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-scale-'));
  try {
    const file = path.join(dir, 'gorouter.log');
    const lines = makeRequests(COPY_ROWS, today + 7_200_000, 3_600_000, `ingest ${name}`).map(gorouterLine);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const ingestStarted = performance.now();
    const ingest = await runCli(
      ['ingest', '--file', file, '--app', 'shop'],
      { DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      {
        timeoutMs: 1_800_000,
      },
    );
    if (ingest.code !== 0) throw new Error(`paasmon ingest failed: ${ingest.stderr}`);
    const ingestRate = lines.length / ((performance.now() - ingestStarted) / 1000);

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
    const summaryMs = await median(() => db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]));
    if (process.env.BENCH_SCALE_EXPLAIN) {
      const plan = await db.query('EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM run_summary WHERE run_id = $1', [runId]);
      console.log(`run_summary in the ${name} database:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    }
    return { copyRate, ingestRate, reportMs, summaryMs };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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

const empty = await startTestDatabase({ bulk: true });
const grown = await startTestDatabase({ bulk: true });
try {
  await migrate(empty.pool, silent);
  await migrate(grown.pool, silent);
  const growStarted = performance.now();
  await grow(grown, { routerRows: ROUTER_ROWS, loadgenRows: LOADGEN_ROWS, days: DAYS, jobs: JOBS, today });
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
      `samples in ${sizes.partitions} partitions over ${DAYS} days, ${mib(Number(sizes.bytes))} on disk ` +
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

  const a = await measure(empty, 'empty');
  const b = await measure(grown, 'grown');

  const rows = [
    ['keyed COPY, router rows/s', a.copyRate, b.copyRate, b.copyRate / a.copyRate, '>= 0.9'],
    ['paasmon ingest --file, lines/s', a.ingestRate, b.ingestRate, b.ingestRate / a.ingestRate, '>= 0.9'],
    [`report data of a ${RUN_REQUESTS}-request run, ms`, a.reportMs, b.reportMs, b.reportMs / a.reportMs, '<= 1.5'],
    ['run_summary of that run, ms', a.summaryMs, b.summaryMs, b.summaryMs / a.summaryMs, '<= 1.5'],
  ];
  console.log(`\n${'what'.padEnd(44)}${'empty'.padStart(12)}${'grown'.padStart(12)}${'ratio'.padStart(8)}  goal`);
  for (const [what, x, y, ratio, goal] of rows) {
    const met = String(goal).startsWith('>=') ? Number(ratio) >= 0.9 : Number(ratio) <= 1.5;
    console.log(
      `${String(what).padEnd(44)}${Number(x).toFixed(0).padStart(12)}${Number(y).toFixed(0).padStart(12)}` +
        `${Number(ratio).toFixed(2).padStart(8)}  ${goal} ${met ? 'met' : 'NOT met'}`,
    );
  }
  // The days to prune: their runs' figures are stored first (as a report of them would), then timed.
  const limit = new Date(today - (DAYS - 1 - PRUNE_DAYS) * DAY_MS).toISOString();
  const { rows: old } = await grown.query('SELECT id FROM test_runs WHERE started_at < $1 ORDER BY id', [limit]);
  const figuresStarted = performance.now();
  for (let i = 0; i < old.length; i += 20) {
    await compareRuns(
      grown.pool,
      old.slice(i, i + 20).map((r) => Number(r.id)),
    );
  }
  const figuresS = (performance.now() - figuresStarted) / 1000;
  const marksMs = await median(() =>
    grown.query('SELECT * FROM run_data_marks($1::bigint[])', [`{${old.map((r) => r.id).join(',')}}`]),
  );
  const { rows: dropped } = await grown.query('SELECT partition FROM paasmon_partitions() WHERE to_ts <= $1', [limit]);
  const droppedSizes = await relationSizes(
    grown,
    dropped.map((r) => String(r.partition)),
  );
  const bytesBefore = Number((await grown.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);
  // The same command with --dry-run: starting node, migrate's check and the plan, without the drop.
  const dryStarted = performance.now();
  await runCli(['prune', '--before', limit, '--dry-run'], { DATABASE_URL: grown.url, LOG_LEVEL: 'warn' });
  const dryMs = performance.now() - dryStarted;
  const pruneStarted = performance.now();
  const prune = await runCli(['prune', '--before', limit], { DATABASE_URL: grown.url, LOG_LEVEL: 'warn' });
  const pruneMs = performance.now() - pruneStarted;
  if (prune.code !== 0) throw new Error(`paasmon prune failed: ${prune.stderr}`);
  const bytesAfter = Number((await grown.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);

  console.log(
    `\npaasmon prune of ${PRUNE_DAYS} days (${old.length} runs, ` +
      `figures stored beforehand in ${figuresS.toFixed(0)} s): ` +
      `${pruneMs.toFixed(0)} ms (whole process; goal < 2000 ms: ${pruneMs < 2000 ? 'met' : 'NOT met'}), ` +
      `${mib(bytesBefore)} -> ${mib(bytesAfter)} on disk; the same with --dry-run ${dryMs.toFixed(0)} ms`,
  );
  console.log(`  ${prune.stdout.split('\n')[0]}`);
  const truncateMs = timeTruncate(grown.dir, droppedSizes);
  const droppedMib = mib(droppedSizes.reduce((a, b) => a + b, 0));
  console.log(
    `  prune minus --dry-run: ${(pruneMs - dryMs).toFixed(0)} ms; bare baseline, the kernel truncating ` +
      `${droppedSizes.length} files of the dropped relations' sizes (${droppedMib}, ` +
      `in the page cache): ${truncateMs.toFixed(0)} ms`,
  );
  console.log(
    `  the data marks of those ${old.length} runs (is each one's stored figures current?): ${marksMs.toFixed(1)} ms`,
  );
  const routerBytes = Number(perRequest.router) / Number(sizes.router);
  const loadgenBytes = Number(perRequest.loadgen) / Number(sizes.loadgen);
  console.log(
    `bytes on disk per stored request (table + indexes): router ${routerBytes.toFixed(0)} ` +
      `(raw CSV ${csvRouter.toFixed(0)}), load generator ${loadgenBytes.toFixed(0)} (raw CSV ${csvLoadgen.toFixed(0)})`,
  );
  console.log(
    `\nmedian of ${REPEAT} after a warm-up; machine load average ` +
      fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  );
} finally {
  await empty.stop();
  await grown.stop();
}
