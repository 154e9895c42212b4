// The report's data comes from one pass over each run's requests (run_report_parts). For a small
// run with every kind of request (errors, timeouts, requests the router did not log, a request the
// router logged twice, several paths, then one) its figures agree with an independent computation in
// JavaScript from the raw rows, and its rows are those of the sql/queries files a user runs in psql.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { loadReportData, runSqlQuery } from '../../exporters/postgres/queries/report.js';
import { mean, percentile, stddevSample } from '../../report/statistics.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const TRIM = 0.1;
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number} */
let runId;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  runId = await seedRun(db.query, {
    label: 'one pass',
    app: 'shop',
    instances: 2,
    coresPerInstance: 1,
    start: new Date('2026-05-01T08:00:00Z'),
    spanS: 50,
    successful: 700,
    serverErrors: 25,
    timeouts: 9,
    durationSql: '1 + (i * 7919 % 1000) / 40.0',
    cpuPolls: [120, 90],
  });
  // Paths of their own for some requests, no router record for others, and one request whose id
  // the router logged a second time later (an app's own call): its first record is the request's.
  await db.query(
    `UPDATE router_requests SET path = '/slow', response_time_ms = response_time_ms * 3
    WHERE correlation_id LIKE $1 || '-%' AND split_part(correlation_id, '-', 2)::int % 5 = 0`,
    [runId],
  );
  await db.query(
    `DELETE FROM router_requests
    WHERE correlation_id LIKE $1 || '-%' AND split_part(correlation_id, '-', 2)::int % 11 = 3`,
    [runId],
  );
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, gorouter_time_ms,
       vcap_request_id, correlation_id)
     SELECT received_at + interval '2 milliseconds', app_guid, app_name, '/nested', 200, 1000, 1, 'second', correlation_id
     FROM router_requests WHERE correlation_id = $1 || '-400'`,
    [runId],
  );
});

after(async () => {
  await db?.stop();
});

/** @param {number | null} actual @param {number | null} expected @param {string} what */
function close(actual, expected, what) {
  assert.ok(actual !== null && expected !== null, `${what}: ${actual} vs ${expected}`);
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

/** The window's requests, each with its first router record, computed here from the raw rows. */
async function independent() {
  const { rows: requests } = await db.query(
    `SELECT l.correlation_id, extract(epoch FROM l.started_at)::float8 AS t, l.duration_ms, l.status, l.error
    FROM loadgen_requests l WHERE l.run_id = $1`,
    [runId],
  );
  const { rows: records } = await db.query(
    `SELECT correlation_id, path, response_time_ms, gorouter_time_ms, received_at, vcap_request_id, app_guid
    FROM router_requests`,
  );
  /** @type {Map<string, any>} */
  const first = new Map();
  const key = (/** @type {any} */ r) => [r.received_at.getTime(), r.vcap_request_id, r.app_guid];
  for (const record of records) {
    const seen = first.get(record.correlation_id);
    if (!seen || JSON.stringify(key(record)) < JSON.stringify(key(seen))) first.set(record.correlation_id, record);
  }
  const spanStart = Math.min(...requests.map((r) => r.t));
  const spanEnd = Math.max(...requests.map((r) => r.t + r.duration_ms / 1000));
  const from = spanStart + (spanEnd - spanStart) * TRIM;
  const to = spanEnd - (spanEnd - spanStart) * TRIM;
  return requests
    .filter((r) => r.t >= from && r.t <= to)
    .map((r) => ({ ...r, router: first.get(r.correlation_id) ?? null }));
}

test('the one-pass report data agrees with the raw rows and with every sql/queries file', async () => {
  const data = await loadReportData(db.pool, [runId], { trim: TRIM, recompute: true });
  const inWindow = await independent();
  const routed = inWindow.filter((r) => r.router);
  assert.ok(routed.length < inWindow.length && routed.some((r) => r.correlation_id === `${runId}-400`));

  const [run] = data.runs;
  const durations = inWindow.map((r) => r.duration_ms);
  const routerMs = routed.map((r) => r.router.response_time_ms);
  assert.equal(run.requests, inWindow.length);
  assert.equal(run.errors, inWindow.filter((r) => r.status === 0 || r.status >= 500).length);
  assert.equal(run.timeouts, inWindow.filter((r) => r.error === 'timeout').length);
  assert.equal(run.router_records, routed.length);
  close(run.e2e_mean_ms, mean(durations), 'e2e mean');
  close(run.e2e_stddev_ms, stddevSample(durations), 'e2e stddev');
  for (const [column, fraction] of /** @type {const} */ ([
    ['e2e_p50_ms', 0.5],
    ['e2e_p90_ms', 0.9],
    ['e2e_p95_ms', 0.95],
    ['e2e_p99_ms', 0.99],
  ])) {
    close(run[column], percentile(durations, fraction), column);
  }
  close(run.router_mean_ms, mean(routerMs), 'router mean');
  close(run.router_p99_ms, percentile(routerMs, 0.99), 'router p99');
  close(
    run.behind_router_mean_ms,
    mean(routed.map((r) => r.router.response_time_ms - r.router.gorouter_time_ms)),
    'behind',
  );

  // Errors: by outcome, most first.
  /** @type {Map<string, number>} */
  const outcomes = new Map();
  for (const r of inWindow.filter((r) => r.status === 0 || r.status >= 500)) {
    const outcome = r.status === 0 ? `error:${r.error}` : `status:${r.status}`;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  assert.deepEqual(
    data.errors.map((e) => [e.outcome, Number(e.requests)]),
    [...outcomes].sort((a, b) => b[1] - a[1]),
  );
  close(data.errors[0].ratio, data.errors[0].requests / inWindow.length, 'error ratio');

  // Paths: the router records' paths (the nested call's '/nested' is not a request's).
  const paths = [...new Set(routed.map((r) => r.router.path))].map((path) => {
    const times = routed.filter((r) => r.router.path === path).map((r) => r.router.response_time_ms);
    return { path, requests: times.length, mean: mean(times), p95: percentile(times, 0.95) };
  });
  paths.sort((a, b) => b.requests - a.requests);
  assert.deepEqual(
    data.paths.map((p) => [p.path, Number(p.requests)]),
    paths.map((p) => [p.path, p.requests]),
  );
  data.paths.forEach((p, i) => {
    close(p.response_time_mean_ms, paths[i].mean, `${p.path} mean`);
    close(p.response_time_p95_ms, paths[i].p95, `${p.path} p95`);
  });

  // The same rows as the query files (numbers to the last bits of a sum in another order).
  const variables = { runs: `{${runId}}`, trim: TRIM };
  const asJson = (/** @type {unknown} */ rows) => JSON.parse(JSON.stringify(rows));
  for (const [part, file] of /** @type {const} */ ([
    ['runs', 'run_comparison'],
    ['errors', 'errors'],
    ['paths', 'paths'],
    ['instanceSeries', 'instance_series'],
  ])) {
    const expected = asJson(await runSqlQuery(db.pool, file, variables));
    const actual = asJson(data[part]);
    assert.equal(actual.length, expected.length, part);
    assert.ok(expected.length > 0, `${part} has rows`);
    actual.forEach((/** @type {any} */ row, /** @type {number} */ i) => {
      assert.deepEqual(Object.keys(row), Object.keys(expected[i]), `${part} columns`);
      for (const [column, value] of Object.entries(expected[i])) {
        if (typeof value === 'number') close(Number(row[column]), value, `${part}.${column}`);
        else if (column.endsWith('_start') || column.endsWith('_end'))
          assert.equal(Date.parse(row[column]), Date.parse(value));
        else
          assert.deepEqual(typeof value === 'string' && /^\d+$/.test(value) ? String(row[column]) : row[column], value);
      }
    });
  }
});

test('a window of one path: the path p95 is the router p95 of its requests, as the raw rows and paths.sql give it', async () => {
  await db.query(`UPDATE router_requests SET path = '/one' WHERE correlation_id LIKE $1 || '-%'`, [runId]);
  const data = await loadReportData(db.pool, [runId], { trim: TRIM, recompute: true });
  const routerMs = (await independent()).filter((r) => r.router).map((r) => r.router.response_time_ms);
  assert.deepEqual(
    data.paths.map((p) => [p.path, Number(p.requests)]),
    [['/one', routerMs.length]],
  );
  close(data.paths[0].response_time_p95_ms, percentile(routerMs, 0.95), 'p95 of the one path');
  const [fromFile] = await runSqlQuery(db.pool, 'paths', { runs: `{${runId}}`, trim: TRIM });
  close(data.paths[0].response_time_p95_ms, Number(fromFile.response_time_p95_ms), 'paths.sql p95');
});
