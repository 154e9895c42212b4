// The report's figures of an ended run, stored by the writer that ended it (refresh_run_figures),
// are read back while the run's data is unchanged; any new row of the run (request, router record,
// instance sample) or a change to the run itself makes the next report compute them again, until
// they are stored again. A report never stores them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { compareRuns } from '../../collector/use-cases/compare-runs.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { loadReportData } from '../../exporters/postgres/queries/report.js';
import { refreshRunFigures } from '../../exporters/postgres/schema/run-figures.js';
import { buildComparison } from '../../report/comparison.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
let start = Date.parse('2026-06-01T08:00:00Z');

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(() => db?.stop());

/** A fresh ended run of 20 s: 200 requests, router records for them, CPU polls. */
async function endedRun() {
  start += 600_000;
  return seedRun(db.query, {
    label: 'stored figures',
    app: 'shop',
    instances: 2,
    coresPerInstance: 1,
    parallel: 4,
    start: new Date(start),
    spanS: 20,
    successful: 200,
    serverErrors: 4,
    durationSql: '2 + (i % 10)',
    cpuPolls: [50, 70],
    pollS: 2,
  });
}

/** @param {number[]} runIds @param {{ trim?: number, recompute?: boolean }} [options] */
const load = (runIds, options = {}) =>
  loadReportData(db.pool, runIds, { trim: options.trim ?? 0.1, recompute: options.recompute });

/** The trims of the run's stored figures, while they are current. @param {number} runId */
const storedTrims = async (runId) =>
  (
    await db.query(
      `SELECT (e ->> 'trim')::double precision AS trim FROM run_figures f, json_array_elements(f.figures) e
       WHERE f.run_id = $1 AND NOT f.stale ORDER BY 1`,
      [runId],
    )
  ).rows.map((row) => row.trim);

/**
 * The run's figures stored as the command that ended it stores them.
 * @param {number} runId @param {number[]} [trims]
 */
const keep = (runId, trims = [0.1]) => refreshRunFigures(db.pool, [runId], trims);

/**
 * Equal, numbers to 1e-12 relative: sums over the same rows in another order (another plan, after
 * the statistics a refresh leaves) differ in their last bits.
 * @param {any} actual @param {any} expected @param {string} [where]
 */
function assertClose(actual, expected, where = '') {
  if (typeof expected === 'number' && typeof actual === 'number') {
    assert.ok(
      Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)),
      `${where}: ${actual} != ${expected}`,
    );
  } else if (expected && typeof expected === 'object' && !(expected instanceof Date)) {
    assert.deepEqual(Object.keys(actual ?? {}).sort(), Object.keys(expected).sort(), where);
    for (const key of Object.keys(expected)) assertClose(actual[key], expected[key], `${where}.${key}`);
  } else {
    assert.deepEqual(actual, expected, where);
  }
}

/** The run's middle moment, inside its steady window. @param {number} runId */
const middleOf = async (runId) =>
  (await db.query(`SELECT started_at + (ended_at - started_at) / 2 AS t FROM test_runs WHERE id = $1`, [runId])).rows[0]
    .t;

test('a report of an ended run whose figures are kept reads them, and they are the figures computed now', async () => {
  const runId = await endedRun();
  const first = await load([runId]);
  assert.deepEqual(first.stored, []);
  assert.deepEqual(await storedTrims(runId), [], 'a report stores nothing');
  await keep(runId);
  assert.deepEqual(await storedTrims(runId), [0, 0.1]);
  const second = await load([runId]);
  assert.deepEqual(second.stored, [runId]);
  // Through JSON, timestamps are ISO strings: compare what the comparison makes of both.
  const comparisonOf = (/** @type {any} */ data) => ({
    ...buildComparison({ ...data, stored: undefined }, { trim: 0.1 }),
    generatedAt: null,
  });
  assertClose(comparisonOf(second), comparisonOf(first));
  assert.equal(second.runs.length, 1);
  assert.equal(second.runs[0].requests, first.runs[0].requests);
  assert.ok(second.errors.length > 0 && second.instanceSeries.length > 0 && second.paths.length > 0);
  // A second trim is a second steady window, stored beside the first when asked for, and kept since.
  assert.deepEqual((await load([runId], { trim: 0.2 })).stored, []);
  await keep(runId, [0.2]);
  assert.deepEqual(await storedTrims(runId), [0, 0.1, 0.2]);
  assert.deepEqual((await load([runId], { trim: 0.2 })).stored, [runId]);
  await db.query(`UPDATE test_runs SET label = 'kept' WHERE id = $1`, [runId]);
  await keep(runId);
  assert.deepEqual(await storedTrims(runId), [0, 0.1, 0.2]);
  assert.deepEqual((await load([runId], { recompute: true })).stored, [], '--recompute ignores what is stored');
});

test('a new request, router record, instance sample or run setting makes the report compute again', async () => {
  const runId = await endedRun();
  await keep(runId);
  const before = await load([runId]);
  const requests = before.runs[0].requests;
  assert.deepEqual(before.stored, [runId]);
  const middle = await middleOf(runId);

  await db.query(
    `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status)
    VALUES ($1, 'late-request', $2, 3, 200)`,
    [runId, middle],
  );
  const afterRequest = await load([runId]);
  assert.deepEqual(afterRequest.stored, []);
  await keep(runId);
  assert.equal(afterRequest.runs[0].requests, requests + 1);
  assert.equal(afterRequest.runs[0].router_records, before.runs[0].router_records);

  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, status, response_time_ms, vcap_request_id,
      correlation_id) VALUES ($1, 'guid-shop', 'shop', 200, 2.5, 'late-router', 'late-request')`,
    [middle],
  );
  const afterRouter = await load([runId]);
  assert.deepEqual(afterRouter.stored, []);
  await keep(runId);
  assert.equal(afterRouter.runs[0].router_records, before.runs[0].router_records + 1);

  await db.query(
    `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes)
    VALUES ($1, 'guid-shop', 'shop', 'web', 7, 'RUNNING', 400, 1048576)`,
    [middle],
  );
  const afterSample = await load([runId]);
  assert.deepEqual(afterSample.stored, []);
  await keep(runId);
  // The new instance's 400 % on top of the others' latest poll (50 or 70 % together).
  assert.ok([450, 470].includes(afterSample.runs[0].cpu_percent_peak), String(afterSample.runs[0].cpu_percent_peak));

  await db.query(`UPDATE test_runs SET label = 'renamed' WHERE id = $1`, [runId]);
  const afterLabel = await load([runId]);
  assert.deepEqual(afterLabel.stored, []);
  assert.equal(afterLabel.runs[0].label, 'renamed');
  await keep(runId);
  assert.deepEqual((await load([runId])).stored, [runId], 'stored again: read back');
  assert.equal((await load([runId])).runs[0].label, 'renamed');
});

test('the figures of a run still going are not stored by the writers', async () => {
  const runId = await endedRun();
  await db.query('UPDATE test_runs SET ended_at = NULL WHERE id = $1', [runId]);
  assert.deepEqual(await keep(runId), []);
  assert.deepEqual((await load([runId])).stored, []);
  assert.deepEqual(await storedTrims(runId), []);
});

test('runs read back and runs computed now come out together, in run order', async () => {
  const [a, b] = [await endedRun(), await endedRun()];
  await keep(b);
  const both = await load([a, b]);
  assert.deepEqual(both.stored, [b]);
  assert.deepEqual(
    both.runs.map((r) => r.run_id),
    [a, b],
  );
  assert.deepEqual([...new Set(both.instanceSeries.map((r) => r.run_id))], [a, b]);
});

test('a role that may only read gets its report, stored or computed, and writes nothing', async () => {
  const runId = await endedRun();
  await db.query(`CREATE ROLE report_reader LOGIN PASSWORD 'reader'`);
  await db.query('GRANT SELECT ON ALL TABLES IN SCHEMA public TO report_reader');
  const reader = new pg.Pool({ connectionString: db.url.replace('paasmon:test-password', 'report_reader:reader') });
  /** @type {any[]} */
  const lines = [];
  const log = pino({ level: 'warn' }, { write: (/** @type {string} */ line) => lines.push(JSON.parse(line)) });
  try {
    const computed = await compareRuns(reader, [runId], { log });
    assert.equal(computed.runs.length, 1);
    assert.equal(computed.runs[0].requests > 0, true);
    assert.deepEqual(await storedTrims(runId), []);
    await keep(runId);
    const stored = await compareRuns(reader, [runId], { log });
    assertClose({ ...stored, generatedAt: null }, { ...computed, generatedAt: null });
    assert.deepEqual(lines, []);
  } finally {
    await reader.end();
  }
});

test('router records of a run without an app name, logged under any app, make the report compute again', async () => {
  const runId = await endedRun();
  await db.query(`DELETE FROM router_requests WHERE correlation_id LIKE $1 || '-%'`, [runId]);
  await db.query('UPDATE test_runs SET app_name = NULL WHERE id = $1', [runId]);
  await keep(runId);
  assert.equal((await load([runId])).runs[0].router_records, 0);
  assert.deepEqual((await load([runId])).stored, [runId]);
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, status, response_time_ms, vcap_request_id,
      correlation_id)
    SELECT started_at, 'guid-elsewhere', 'elsewhere', status, duration_ms / 2, correlation_id, correlation_id
    FROM loadgen_requests WHERE run_id = $1`,
    [runId],
  );
  const again = await load([runId]);
  assert.deepEqual(again.stored, []);
  assert.ok(again.runs[0].router_records > 0);
});

test("a run's stored figures are the same whatever the time zone and date style of the session storing them", async () => {
  const runId = await endedRun();
  await keep(runId);
  const stored = async () =>
    (await db.query('SELECT figures::text AS f FROM run_figures WHERE run_id = $1', [runId])).rows[0].f;
  const utc = await stored();
  const client = await db.pool.connect();
  try {
    await client.query("SET TimeZone = 'Pacific/Chatham'");
    await client.query("SET DateStyle = 'German'");
    await client.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
    await client.query('SELECT refresh_run_figures($1)', [runId]);
  } finally {
    await client.query('RESET ALL');
    client.release();
  }
  assert.equal(await stored(), utc);
});
