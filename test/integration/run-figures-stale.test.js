// What makes a run's stored figures stale (run_figures_written, sql/views/25_run_figures.sql):
// every write into the run's window, noted by the page writer or not, without reading the raw
// rows; a refresh waits for the writers that marked the run before it and is marked stale again by
// those after it; prune stores again figures that went stale before it drops the rows; migration
// 019's down migration keeps what was stored.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/sink/page-writer.js';
import { refreshRunFigures } from '../../exporters/postgres/schema/run-figures.js';
import { runCli } from '../support/cli.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { undoMigrationsFrom } from '../support/migrations.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number} */
let runId;
const start = new Date('2025-05-01T10:00:00Z');

/** @param {string} sql @param {unknown[]} [params] */
const rowsOf = async (sql, params) => (await db.query(sql, params)).rows;
const isStale = async () => (await rowsOf('SELECT stale FROM run_figures WHERE run_id = $1', [runId]))[0].stale;
/** The run's figures stored again, as a writer stores them. */
const keep = async () => assert.deepEqual(await refreshRunFigures(db.pool, [runId], [0.1]), [runId]);
/** The run's requests in its stored figures (trim 0). */
const storedRequests = async () =>
  (await rowsOf(`SELECT run_figures_stored($1, 0) -> 'runs' -> 0 ->> 'requests' AS n`, [runId]))[0].n;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  runId = await seedRun(db.query, {
    label: 'marked',
    app: 'app-m',
    instances: 1,
    coresPerInstance: 1,
    cpuPolls: [40],
    start,
    spanS: 120,
    successful: 300,
  });
});

after(async () => {
  await db?.stop();
});

test('marking a write reads none of the raw rows', async () => {
  const { added } = await countersAcross(
    db.pool,
    `SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::int AS scans FROM pg_stat_xact_user_tables
     WHERE relname ~ '^(router_requests|loadgen_requests|instance_samples)'`,
    [],
    (client) => client.query('SELECT run_figures_written($1, $1)', [start]),
  );
  assert.equal(added.scans, 0, 'scans of the raw rows');
});

test("a write into the run's window marks its figures stale; a write of another time does not", async () => {
  const writePage = createPageWriter(db.pool);
  const router = (/** @type {number} */ ms, /** @type {string} */ id) => ({
    kind: 'router_request',
    receivedAt: new Date(ms),
    appName: 'app-m',
    vcapRequestId: id,
    correlationId: id,
    status: 200,
    responseTimeMs: 3,
  });
  await keep();
  // A day later: the pages' notes do not reach the run's window.
  const later = start.getTime() + 86_400_000;
  await writePage({
    kind: 'router_request',
    records: [],
    encoded: encodeRecords('router_request', [router(later, 'x')]),
  });
  await writePage({ kind: 'router_request', records: /** @type {any[]} */ ([router(later + 1, 'y')]) });
  assert.equal(await isStale(), false, 'pages of another day');
  // Within the hour after the run's end: an encoded page, then a page of records.
  const near = start.getTime() + 120_000 + 240_000;
  await writePage({
    kind: 'router_request',
    records: [],
    encoded: encodeRecords('router_request', [router(near, 'z')]),
  });
  assert.equal(await isStale(), true, 'an encoded page in the window');
  await keep();
  await writePage({ kind: 'router_request', records: /** @type {any[]} */ ([router(near + 1, 'w')]) });
  assert.equal(await isStale(), true, 'a page of records in the window');
  await keep();
  // Rows moved out of the default partition (statements on partitions): no run's data changed.
  await migrate(db.pool, pino({ level: 'silent' }));
  assert.equal(await isStale(), false, 'partition upkeep');
  // A statement no writer noted (a direct INSERT, of another app: records are matched by time).
  await db.query(`INSERT INTO router_requests (received_at, vcap_request_id, app_name) VALUES ($1, 'v', 'other')`, [
    new Date(near + 2),
  ]);
  assert.equal(await isStale(), true, 'a direct INSERT');
});

test("prune stores again a run's figures that went stale, before it drops the rows", async () => {
  const env = { DATABASE_URL: db.url };
  await keep();
  const stored = Number(await storedRequests());
  // Late load-generator rows of the run through the page writer (an import after the run ended).
  const writePage = createPageWriter(db.pool);
  const late = Array.from({ length: 5 }, (_, i) => ({
    kind: 'loadgen_request',
    runId,
    correlationId: `late-${i}`,
    startedAt: new Date(start.getTime() + 60_000 + i),
    durationMs: 5,
    status: 200,
    worker: 'w0',
  }));
  await writePage({ kind: 'loadgen_request', records: [], encoded: encodeRecords('loadgen_request', late, 5) });
  assert.equal(await isStale(), true);
  const result = await runCli(['prune', '--before', '2025-05-03T00:00:00Z'], env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal((await rowsOf('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId]))[0].n, 0);
  assert.equal(Number(await storedRequests()), stored + 5, 'the figures of every row, the late ones included');
  const report = await runCli(['report', '--runs', String(runId), '--format', 'json', '--trim', '0'], env);
  assert.equal(report.code, 0, report.stderr);
  assert.equal(Number(JSON.parse(report.stdout).runs[0].requests), stored + 5);
});

test('a refresh waits for a writer that marked the run before it, and one marking it after marks it stale', async () => {
  const other = await seedRun(db.query, { label: 'waits', app: 'app-w', start, spanS: 60, successful: 50 });
  const stale = async () => (await rowsOf('SELECT stale FROM run_figures WHERE run_id = $1', [other]))[0].stale;
  const requests = async () =>
    Number((await rowsOf(`SELECT run_figures_stored($1, 0) -> 'runs' -> 0 ->> 'requests' AS n`, [other]))[0].n);
  const writer = await db.pool.connect();
  try {
    // A writer's page: its rows, then its note as its last statement, not committed yet.
    await writer.query('BEGIN');
    await writer.query(`SELECT paasmon_noting_writes('loadgen_requests')`);
    await writer.query(
      `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status)
       VALUES ($1, 'in-flight', $2, 1, 200)`,
      [other, new Date(start.getTime() + 1000)],
    );
    await writer.query(`SELECT paasmon_note_write('loadgen_requests', $1, $1)`, [new Date(start.getTime() + 1000)]);
    const refreshing = refreshRunFigures(db.pool, [other], [0.1]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writer.query('COMMIT');
    assert.deepEqual(await refreshing, [other]);
    assert.equal(await requests(), 51, 'the refresh saw the rows of the writer it waited for');
    assert.equal(await stale(), false);
    // A refresh in progress (its transaction open); a writer marking the run now waits for it.
    await writer.query('BEGIN');
    await writer.query(`UPDATE run_figures SET stale = true WHERE run_id = $1`, [other]);
    await writer.query(`SELECT refresh_run_figures($1)`, [other]);
    const marking = db.query(`SELECT run_figures_written($1, $1)`, [new Date(start.getTime() + 2000)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writer.query('COMMIT');
    await marking;
    assert.equal(await stale(), true, 'marked after the refresh it waited for');
  } finally {
    await writer.query('ROLLBACK').catch(() => {});
    writer.release();
  }
});

test("migration 019's down keeps the stored figures in the tables before it, and up brings them back", async () => {
  await db.query('CREATE DATABASE figures_down');
  const pool = new pg.Pool({ connectionString: db.url.replace(/\/postgres$/, '/figures_down'), max: 2 });
  try {
    await migrate(pool, pino({ level: 'silent' }));
    const query = (/** @type {string} */ sql, /** @type {unknown[]} */ params = []) => pool.query(sql, params);
    const spec = { label: 'down', app: 'app-d', spanS: 20, successful: 40 };
    const [pruned, kept] = [
      await seedRun(query, { ...spec, start: new Date('2025-07-01T10:00:00Z') }),
      await seedRun(query, { ...spec, start: new Date('2025-07-02T10:00:00Z') }),
    ];
    for (const run of [pruned, kept]) await query('SELECT refresh_run_figures($1, $2)', [run, '{0.1}']);
    await query('INSERT INTO run_prunes (run_id) VALUES ($1)', [pruned]);
    const stored = (await query('SELECT run_figures_stored($1, 0.1)::text AS data', [pruned])).rows[0].data;
    await undoMigrationsFrom(pool, '019');
    const { rows: old } = await query(
      `SELECT run_id::int, trim_fraction, figures::text AS data FROM run_report_figures ORDER BY 1, 2`,
    );
    assert.deepEqual(
      old.map((row) => [row.run_id, row.trim_fraction]),
      [
        [pruned, 0],
        [pruned, 0.1],
        [kept, 0],
        [kept, 0.1],
      ],
    );
    assert.deepEqual(JSON.parse(old[1].data), JSON.parse(stored));
    const { rows: tables } = await query(
      `SELECT to_regclass('run_figures') AS figures, to_regclass('run_summary_figures') AS summary,
              to_regclass('paasmon_data_writes') AS writes`,
    );
    assert.deepEqual(tables[0], { figures: null, summary: 'run_summary_figures', writes: 'paasmon_data_writes' });
    await migrate(pool, pino({ level: 'silent' }));
    const { rows: back } = await query('SELECT run_id::int, stale FROM run_figures ORDER BY 1');
    assert.deepEqual(back, [
      { run_id: pruned, stale: false },
      { run_id: kept, stale: true },
    ]);
    assert.equal((await query('SELECT run_figures_stored($1, 0.1)::text AS data', [pruned])).rows[0].data, stored);
  } finally {
    await pool.end();
  }
});
