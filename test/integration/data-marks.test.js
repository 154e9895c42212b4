// The data marks that tell whether a run's stored report figures are current (run_data_marks,
// migration 015): read from the notes of the writes, never by counting the run's rows, and changed
// by every write into the run's time, noted by the page writer or not; prune recomputes figures
// that went stale before it drops the rows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/migrate.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/page-writer.js';
import { runCli } from '../support/cli.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number} */
let runId;
const start = new Date('2025-05-01T10:00:00Z');

/** @param {string} sql @param {unknown[]} [params] */
const rowsOf = async (sql, params) => (await db.query(sql, params)).rows;
const markOf = async () =>
  (await rowsOf('SELECT data_mark FROM run_data_marks($1::bigint[])', [`{${runId}}`]))[0].data_mark;

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

test("a run's data mark reads none of the raw rows", async () => {
  const { added } = await countersAcross(
    db.pool,
    `SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::int AS scans FROM pg_stat_xact_user_tables
     WHERE relname ~ '^(router_requests|loadgen_requests|instance_samples)'`,
    [],
    (client) => client.query('SELECT * FROM run_data_marks($1::bigint[])', [`{${runId}}`]),
  );
  assert.equal(added.scans, 0, 'scans of the raw rows');
});

test("a write into the run's time changes its mark; a write of another time does not", async () => {
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
  const first = await markOf();
  // A day later: the pages' notes do not reach the run's window.
  const later = start.getTime() + 86_400_000;
  await writePage({
    kind: 'router_request',
    records: [],
    encoded: encodeRecords('router_request', [router(later, 'x')]),
  });
  await writePage({ kind: 'router_request', records: /** @type {any[]} */ ([router(later + 1, 'y')]) });
  assert.equal(await markOf(), first, 'pages of another day');
  // Within 5 minutes after the run's end: an encoded page, then a page of records.
  const near = start.getTime() + 120_000 + 240_000;
  await writePage({
    kind: 'router_request',
    records: [],
    encoded: encodeRecords('router_request', [router(near, 'z')]),
  });
  const second = await markOf();
  assert.notEqual(second, first, 'an encoded page in the window');
  await writePage({ kind: 'router_request', records: /** @type {any[]} */ ([router(near + 1, 'w')]) });
  const third = await markOf();
  assert.notEqual(third, second, 'a page of records in the window');
  // A statement no writer noted (a direct INSERT, of another app: records are matched by time).
  await db.query(`INSERT INTO router_requests (received_at, vcap_request_id, app_name) VALUES ($1, 'v', 'other')`, [
    new Date(near + 2),
  ]);
  assert.notEqual(await markOf(), third, 'a direct INSERT');
});

test("prune recomputes a run's figures when its data changed after they were stored", async () => {
  const env = { DATABASE_URL: db.url };
  const requestsOf = async () => {
    const report = await runCli(['report', '--runs', String(runId), '--format', 'json'], env);
    assert.equal(report.code, 0, report.stderr);
    return Number(JSON.parse(report.stdout).runs[0].requests);
  };
  const stored = await requestsOf();
  const storedMark = (await rowsOf('SELECT data_mark FROM run_report_figures WHERE run_id = $1', [runId]))[0];
  assert.ok(storedMark, 'the report stored the figures');
  // Late load-generator rows of the run through the page writer (an import after the first report).
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
  const result = await runCli(['prune', '--before', '2025-05-03T00:00:00Z'], env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal((await rowsOf('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId]))[0].n, 0);
  assert.equal(await requestsOf(), stored + 5, 'the figures of every row, the late ones included');
});

test('a write that drew its id first and committed after the mark was taken still changes the mark', async () => {
  const early = await db.pool.connect();
  try {
    // Two hours of the run's window, written by two transactions: the first to draw commits last.
    await early.query('BEGIN');
    await early.query(`SELECT paasmon_note_write('router_requests', $1, $1)`, [new Date(start.getTime() - 120_000)]);
    await db.query(`SELECT paasmon_note_write('router_requests', $1, $1)`, [new Date(start.getTime() + 60_000)]);
    const taken = await markOf();
    await early.query('COMMIT');
    assert.notEqual(await markOf(), taken);
  } finally {
    early.release();
  }
});
