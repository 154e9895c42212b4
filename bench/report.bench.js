// The cost of comparing one run in a database of many: `paasmon report` and `paasmon correlate`
// for a 10,000-request run among BENCH_RUNS such runs, and for one run of BENCH_BIG_REQUESTS
// correlated requests, each next to a bare percentile_cont over the same rows, and next to the
// queries before migration 005 (run_summary as in 003, correlate's lookup by correlation id alone).
// The report's figures are timed computed (--recompute), stored (refresh_run_figures, as run stop
// does) and read back stored. run_summary computed (its stored figures stale) and read back
// stored. The runs dashboard's table of runs over a time range holding that run only, computing
// it, next to its run_summary.
// The first report of many runs, computed on one connection and side by side on several.
// Run: npm run bench -- report   (BENCH_RUNS=200, BENCH_RUN_REQUESTS=10000, BENCH_BIG_REQUESTS=1000000,
// BENCH_BIG_PATHS=1: the paths its requests are spread over,
// BENCH_REPEAT=5: the median of that many timings)
import fs from 'node:fs';
import pg from 'pg';
import pino from 'pino';
import { correlationCounts } from '../exporters/postgres/queries/correlation.js';
import { compareRuns } from '../collector/use-cases/compare-runs.js';
import { renderComparison } from '../report/render/index.js';
import { REPORT_CONNECTIONS } from '../core/tunables.js';
import { MIGRATIONS_DIR, migrate } from '../exporters/postgres/schema/migrate.js';
import { preparePartitions } from '../exporters/postgres/schema/partitions.js';
import { runCli } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { expandSql, loadDashboards, queriesOf } from '../test/support/grafana.js';
import { seedRun } from '../test/support/report-runs.js';
import { medianMs } from './support/median.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const RUN_REQUESTS = Number(process.env.BENCH_RUN_REQUESTS ?? 10_000);
const BIG_REQUESTS = Number(process.env.BENCH_BIG_REQUESTS ?? 1_000_000);
const BIG_PATHS = Number(process.env.BENCH_BIG_PATHS ?? 1);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);

// correlate's query before this change: router_only looked loadgen rows up by correlation id alone.
const CORRELATE_BEFORE = `
  WITH runs AS (
    SELECT t.id, t.label, t.app_name, t.started_at,
           coalesce(t.ended_at, (SELECT max(started_at + duration_ms * interval '1 millisecond')
                                 FROM loadgen_requests l WHERE l.run_id = t.id)) AS ended_at
    FROM test_runs t WHERE t.id = $1)
  SELECT r.id,
    (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = r.id) AS requests,
    (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = r.id
       AND EXISTS (SELECT 1 FROM router_requests x WHERE x.correlation_id = l.correlation_id)) AS matched,
    (SELECT count(*) FROM router_requests x WHERE x.app_name = r.app_name
       AND x.received_at >= r.started_at AND x.received_at <= r.ended_at
       AND NOT EXISTS (SELECT 1 FROM loadgen_requests l WHERE l.correlation_id = x.correlation_id)) AS router_only
  FROM runs r`;

/** `REPEAT` timings' median. @param {() => Promise<unknown>} work @param {() => Promise<unknown>} [prepare] */
const median = (work, prepare) => medianMs(work, REPEAT, prepare);

const db = await startTestDatabase({ bulk: true });
try {
  await migrate(db.pool, pino({ level: 'silent' }));
  const started = performance.now();
  const base = Date.parse('2026-02-01T00:00:00Z');
  /** @type {number[]} */
  const small = [];
  for (let i = 0; i < RUNS; i++) {
    small.push(
      await seedRun(db.query, {
        label: `run ${i}`,
        app: 'shop',
        implementation: 'java',
        instances: 2,
        coresPerInstance: 2,
        parallel: 1 + (i % 16),
        start: new Date(base + i * 600_000),
        spanS: 60,
        successful: RUN_REQUESTS - 10,
        serverErrors: 10,
        durationSql: '1 + (i::bigint * 7919 % 1000) / 50.0',
        cpuPolls: [150, 170],
        memMiBPerInstance: 300,
      }),
    );
  }
  const big = await seedRun(db.query, {
    label: 'big',
    app: 'shop',
    implementation: 'java',
    instances: 4,
    coresPerInstance: 2,
    parallel: 64,
    start: new Date(base + (RUNS + 1) * 600_000),
    spanS: 300,
    successful: BIG_REQUESTS,
    durationSql: '1 + (i::bigint * 7919 % 1000) / 50.0',
    cpuPolls: [500, 520, 480],
    memMiBPerInstance: 400,
    paths: BIG_PATHS,
  });
  // The rows into partitions of their days, as collect's or migrate's upkeep would: part of
  // building the database, not of the first report's figures.
  await preparePartitions(db.pool);
  await db.query('VACUUM ANALYZE');
  const {
    rows: [sizes],
  } = await db.query(
    `SELECT (SELECT count(*) FROM loadgen_requests)::int AS loadgen,
            (SELECT count(*) FROM router_requests)::int AS router`,
  );
  console.log(
    `database: ${RUNS} runs x ${RUN_REQUESTS} requests + 1 run of ${BIG_REQUESTS} over ${BIG_PATHS} paths: ` +
      `${sizes.loadgen} load-generator and ${sizes.router} router rows ` +
      `(built in ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );

  // run_summary as migration 003 defined it, on 003's correlated_requests, for the before/after figure.
  const before = fs.readFileSync(`${MIGRATIONS_DIR}003_correlation_views.sql`, 'utf8');
  const views = before
    .slice(before.indexOf('CREATE VIEW correlated_requests AS'), before.indexOf('-- Down Migration'))
    .replaceAll('correlated_requests', 'correlated_requests_before')
    .replace('CREATE VIEW run_summary AS', 'CREATE VIEW run_summary_before AS');
  await db.query(views);

  const one = small[Math.floor(RUNS / 2)];
  const runsPanel = queriesOf(loadDashboards()['runs.json']).find((q) => q.where === 'paasmon-runs panel "Runs" A');
  /** The runs dashboard's table as Grafana sends it, a second either side of a run's start. @param {number} runId */
  const runsPanelAround = async (runId) => {
    const { rows: found } = await db.query('SELECT started_at FROM test_runs WHERE id = $1', [runId]);
    const at = found[0].started_at.getTime();
    const range = { from: new Date(at - 1000), to: new Date(at + 1000), interval: '1m', variables: {} };
    return expandSql(/** @type {{ text: string }} */ (runsPanel).text, range);
  };
  /** @param {string} sql @param {unknown[]} params */
  const sql = (sql, params) => () => db.query(sql, params);
  const bare =
    'SELECT percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) ' +
    'FROM loadgen_requests WHERE run_id = $1';
  const bareJoin =
    'SELECT count(*) FROM loadgen_requests l JOIN router_requests x ON x.correlation_id = l.correlation_id ' +
    'WHERE l.run_id = $1';
  // PostgreSQL's own floor for one run's exact figures: the run's requests joined with their
  // router records (in parallel, with run_request_figures' settings) feeding the two exact
  // percentile_cont sorts in one process, and nothing else.
  const floor = `SELECT percentile_cont(ARRAY[0.5, 0.9, 0.95, 0.99]) WITHIN GROUP (ORDER BY l.duration_ms),
      percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY x.response_time_ms)
    FROM loadgen_requests l LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id WHERE l.run_id = $1`;
  /** @param {string} text @param {unknown[]} params */
  const withSettings = (text, params) => async () => {
    const client = await db.pool.connect();
    try {
      await client.query("BEGIN; SET LOCAL work_mem = '128MB'; SET LOCAL parallel_tuple_cost = 0.01");
      await client.query(text, params);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };
  const rows = [];
  /** @type {Array<[string, string, boolean, string]>} */
  const goals = [];
  for (const [name, runId] of /** @type {const} */ ([
    [`10k run (${one})`, one],
    [`1M run (${big})`, big],
  ])) {
    if (runId === big && BIG_REQUESTS === 0) continue;
    const bareMs = await median(sql(bare, [runId]));
    const bareJoinMs = await median(sql(bareJoin, [runId]));
    const computeMs = await median(() => compareRuns(db.pool, [runId], { recompute: true }));
    const unstored = sql('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
    const store = sql('SELECT refresh_run_figures($1, $2)', [runId, '{0.1}']);
    const storeMs = await median(store, unstored);
    const compareMs = await median(() => compareRuns(db.pool, [runId]));
    rows.push([name, 'bare percentile_cont (e2e p50/p95/p99)', bareMs, 1]);
    rows.push([name, 'bare load-generator x router join count', bareJoinMs, bareJoinMs / bareMs]);
    const floorMs = await median(withSettings(floor, [runId]));
    rows.push([name, 'floor: that join feeding the two percentile sorts', floorMs, floorMs / bareMs]);
    rows.push([name, 'report data, computed (run_report_parts: one pass)', computeMs, computeMs / bareMs]);
    rows.push([name, 'report data, stored figures of the unchanged run', compareMs, compareMs / bareMs]);
    rows.push([name, 'storing its figures (whole run and default window)', storeMs, storeMs / bareMs]);
    if (runId === big) {
      const ratio = compareMs / bareMs;
      goals.push([name, 'report data (stored) <= 1.5 x bare', ratio <= 1.5, ratio.toFixed(2)]);
      goals.push([
        name,
        'report data (computed) <= 3 x bare',
        computeMs / bareMs <= 3,
        (computeMs / bareMs).toFixed(2),
      ]);
    }
    const comparison = await compareRuns(db.pool, [runId]);
    rows.push([name, 'render html (ECharts SVG)', await median(() => renderComparison(comparison, 'html')), null]);
    const summaryMs = await median(sql('SELECT * FROM run_summary WHERE run_id = $1', [runId]), unstored);
    rows.push([name, 'run_summary WHERE run_id, computed (now)', summaryMs, summaryMs / bareMs]);
    await store();
    const storedSummaryMs = await median(sql('SELECT * FROM run_summary WHERE run_id = $1', [runId]));
    rows.push([name, 'run_summary WHERE run_id, stored figures', storedSummaryMs, storedSummaryMs / bareMs]);
    const panelMs = await median(sql(await runsPanelAround(runId), []), unstored);
    rows.push([name, 'runs dashboard table, this run in range (x run_summary)', panelMs, panelMs / summaryMs]);
    const summaryBeforeMs = await median(sql('SELECT * FROM run_summary_before WHERE run_id = $1', [runId]));
    rows.push([name, 'run_summary WHERE run_id (before: 003)', summaryBeforeMs, summaryBeforeMs / bareMs]);
    const correlateMs = await median(() => correlationCounts(db.pool, runId));
    rows.push([name, 'correlate counts (now; x bare join)', correlateMs, correlateMs / bareJoinMs]);
    const correlateBeforeMs = await median(sql(CORRELATE_BEFORE, [runId]));
    rows.push([name, 'correlate counts (before; x bare join)', correlateBeforeMs, correlateBeforeMs / bareJoinMs]);
    if (runId === big) {
      goals.push([
        name,
        'run_summary (computed) <= 2 x bare',
        summaryMs / bareMs <= 2,
        (summaryMs / bareMs).toFixed(2),
      ]);
      const storedRatio = storedSummaryMs / bareMs;
      goals.push([name, 'run_summary (stored) <= 2 x bare', storedRatio <= 2, storedRatio.toFixed(2)]);
      const correlateRatio = correlateMs / bareJoinMs;
      goals.push([name, 'correlate <= 1.5 x bare join', correlateRatio <= 1.5, correlateRatio.toFixed(2)]);
    }
    await store();
    for (const [format, ...extra] of [['table'], ['html'], ['table', '--recompute']]) {
      // The median of REPEAT processes after a warm-up, as every other figure: one start alone varies.
      const wholeMs = await median(async () => {
        const cli = await runCli(
          ['report', '--runs', String(runId), '--format', format, ...extra],
          { DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
          { timeoutMs: 600_000 },
        );
        if (cli.code !== 0) throw new Error(`paasmon report failed: ${cli.stderr}`);
      });
      rows.push([name, `paasmon report --format ${[format, ...extra].join(' ')} (whole process)`, wholeMs, null]);
      if (runId === one && format === 'table' && !extra.length)
        goals.push([name, 'paasmon report (whole process) <= 500 ms', wholeMs <= 500, `${wholeMs.toFixed(0)} ms`]);
    }
  }
  // The first report of many runs: their figures computed on one connection, and side by side on
  // REPORT_CONNECTIONS connections sharing one snapshot (what `paasmon report` does).
  const oneConnection = new pg.Pool({ ...db.pool.options, max: 1 });
  try {
    for (const [name, runIds] of /** @type {Array<[string, number[]]>} */ ([
      [`${RUNS} 10k runs`, small],
      [`all ${RUNS + 1} runs`, [...small, big]],
    ])) {
      const oneMs = await median(() => compareRuns(oneConnection, runIds, { recompute: true }));
      const sideMs = await median(() => compareRuns(db.pool, runIds, { recompute: true }));
      rows.push([name, 'report data computed, one connection', oneMs, null]);
      rows.push([name, `the same, ${REPORT_CONNECTIONS} connections side by side (x one)`, sideMs, sideMs / oneMs]);
    }
  } finally {
    await oneConnection.end();
  }
  console.log(`\n${'run'.padEnd(18)}${'what'.padEnd(56)}${'ms'.padStart(10)}  x bare (percentile_cont, or as named)`);
  for (const [name, what, ms, ratio] of rows) {
    console.log(
      `${String(name).padEnd(18)}${String(what).padEnd(56)}${Number(ms).toFixed(1).padStart(10)}  ` +
        `${ratio === null ? '' : Number(ratio).toFixed(2)}`,
    );
  }
  console.log('');
  for (const [name, goal, met, figure] of goals) {
    console.log(`goal ${String(name).padEnd(18)}${goal.padEnd(44)}${figure.padStart(10)}  ${met ? 'met' : 'NOT met'}`);
  }
  console.log(
    `\nmedian of ${REPEAT} after a warm-up; machine load average ` +
      fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  );
} finally {
  await db.stop();
}
