// A correlation id the router logged twice: the app forwarded the header on a call of its own
// through the router (to a "stock" app, or to itself), a few ms after the request came in. The
// load generator's request is the router's first record of the id; every view, function and query
// of sql/queries must pick that one, once per request, whatever order the rows were stored in.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { runSqlQuery } from '../../exporters/postgres/queries/report.js';
import { mean, percentile } from '../../report/statistics.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const REQUESTS = 400;
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** Runs whose nested calls were stored before, and after, the requests' own records. @type {number[]} */
const runIds = [];

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  for (const nestedFirst of [true, false]) {
    const runId = await seedRun(db.query, {
      label: `forwarding app, nested calls stored ${nestedFirst ? 'first' : 'last'}`,
      app: 'shop',
      start: new Date(Date.parse('2026-03-01T12:00:00Z') + runIds.length * 3_600_000),
      spanS: 40,
      successful: REQUESTS,
      durationSql: '20 + i % 13',
      router: false,
    });
    /**
     * A router record for each of the run's requests whose `appSql` is not NULL.
     * @param {string} appSql @param {number} afterMs @param {string} shareOfE2e @param {string} pathPrefix
     */
    const routerRecords = (appSql, afterMs, shareOfE2e, pathPrefix) =>
      db.query(
        `INSERT INTO router_requests (received_at, app_guid, app_name, app_index, method, path, status,
           response_time_ms, gorouter_time_ms, vcap_request_id, correlation_id)
        SELECT started_at + $2 * interval '1 millisecond', 'guid-' || app, app, 0, 'GET', $3 || app, 200,
               duration_ms * ${shareOfE2e}, 0.1, md5($3 || correlation_id), correlation_id
        FROM (SELECT l.*, ${appSql} AS app FROM loadgen_requests l WHERE run_id = $1) l
        WHERE app IS NOT NULL`,
        [runId, afterMs, pathPrefix],
      );
    // Which stored row a lookup meets first depends on the index and the storage order: both orders
    // are here, so a pick that takes whichever row comes first fails for one of the runs. A quarter
    // of the requests call "stock", a quarter their own app (the same app name, a nested path).
    const nested = () =>
      routerRecords(
        `CASE abs(hashtext(correlation_id)) % 4 WHEN 0 THEN 'stock' WHEN 1 THEN 'shop' END`,
        3,
        '0.3',
        '/nested/',
      );
    const own = () => routerRecords(`'shop'`, 0.2, '0.8', '/');
    for (const insert of nestedFirst ? [nested, own] : [own, nested]) await insert();
    runIds.push(runId);
  }
  await db.query('ANALYZE');
});

after(async () => {
  await db?.stop();
});

/** Each request with its router record picked here: the earliest received, in JavaScript. @param {number} runId */
async function independent(runId) {
  const { rows: requests } = await db.query(
    'SELECT correlation_id, duration_ms FROM loadgen_requests WHERE run_id = $1 ORDER BY correlation_id',
    [runId],
  );
  const { rows: records } = await db.query(
    `SELECT correlation_id, extract(epoch FROM received_at)::float8 AS received, response_time_ms,
       gorouter_time_ms, path FROM router_requests WHERE correlation_id LIKE $1`,
    [`${runId}-%`],
  );
  /** @type {Map<string, any>} */
  const first = new Map();
  for (const r of records) {
    const seen = first.get(r.correlation_id);
    if (!seen || r.received < seen.received) first.set(r.correlation_id, r);
  }
  const twice = records.length - first.size;
  assert.ok(twice > REQUESTS / 4 && twice < (3 * REQUESTS) / 4, `${twice} ids logged twice`);
  return requests.map((l) => ({ ...l, router: first.get(l.correlation_id) }));
}

/** @param {number | null} actual @param {number | null} expected @param {string} what */
function close(actual, expected, what) {
  assert.ok(actual !== null && expected !== null, `${what}: ${actual} vs ${expected}`);
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

test('correlated_requests: one row per request, with the router record the request itself made', async () => {
  for (const runId of runIds) {
    const expected = await independent(runId);
    const { rows } = await db.query(
      'SELECT correlation_id, e2e_ms, router_ms, overhead_ms FROM correlated_requests WHERE run_id = $1 ORDER BY 1',
      [runId],
    );
    assert.equal(rows.length, REQUESTS, `run ${runId}`);
    rows.forEach((row, i) => {
      assert.equal(row.correlation_id, expected[i].correlation_id);
      close(row.router_ms, expected[i].router.response_time_ms, `router_ms of ${row.correlation_id}`);
      close(row.overhead_ms, expected[i].duration_ms - expected[i].router.response_time_ms, 'overhead_ms');
    });
  }
});

test("run_summary and run_comparison take the request's own record", async () => {
  for (const runId of runIds) {
    const expected = await independent(runId);
    const routerMs = expected.map((r) => r.router.response_time_ms);
    const [summary] = (await db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId])).rows;
    assert.equal(summary.matched_ratio, 1);
    close(summary.router_mean_ms, mean(routerMs), `run ${runId}: run_summary router mean`);
    close(summary.router_p95_ms, percentile(routerMs, 0.95), `run ${runId}: run_summary router p95`);
    // trim 0: the window is the whole run, so every request is in it.
    const [run] = await runSqlQuery(db.pool, 'run_comparison', { runs: `{${runId}}`, trim: 0 });
    assert.equal(run.requests, REQUESTS);
    assert.equal(run.router_records, REQUESTS);
    close(run.router_mean_ms, mean(routerMs), `run ${runId}: run_comparison router mean`);
    close(run.router_p99_ms, percentile(routerMs, 0.99), `run ${runId}: run_comparison router p99`);
    const outside = expected.map((r) => r.duration_ms - r.router.response_time_ms);
    close(run.outside_router_mean_ms, mean(outside), `run ${runId}: run_comparison outside mean`);
  }
});

test("latency_breakdown and paths take the request's own record", async () => {
  for (const runId of runIds) {
    const expected = await independent(runId);
    const [breakdown] = await runSqlQuery(db.pool, 'latency_breakdown', { runs: `{${runId}}`, trim: 0 });
    assert.equal(breakdown.matched, REQUESTS);
    const outside = expected.map((r) => r.duration_ms - r.router.response_time_ms);
    close(breakdown.outside_router_mean_ms, mean(outside), `run ${runId}: breakdown outside mean`);
    close(breakdown.outside_router_p95_ms, percentile(outside, 0.95), `run ${runId}: breakdown outside p95`);
    const paths = await runSqlQuery(db.pool, 'paths', { runs: `{${runId}}`, trim: 0 });
    assert.deepEqual(
      paths.map((p) => [p.path, p.requests]),
      [['/shop', REQUESTS]],
      `run ${runId}`,
    );
  }
});

test('router_record: records received at the same moment go by vcap_request_id, then app_guid', async () => {
  // [vcap_request_id, app_guid]; the pick is the last, stored first, in the middle or last.
  const records = [
    ['b-request', 'guid-a'],
    ['a-request', 'guid-b'],
    ['a-request', 'guid-a'],
  ];
  const orders = [
    [2, 0, 1],
    [0, 2, 1],
    [1, 0, 2],
  ];
  for (const [i, order] of orders.entries()) {
    const id = `tie-${order.join('')}`;
    for (const k of order) {
      await db.query(
        `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms,
           vcap_request_id, correlation_id)
        VALUES ('2026-03-01T13:00:00Z'::timestamptz + $5 * interval '1 second', $1, 'shop', '/', 200, $2, $3, $4)`,
        [records[k][1], k + 1, records[k][0], id, i],
      );
    }
    const { rows } = await db.query('SELECT vcap_request_id, app_guid, response_time_ms FROM router_record($1)', [id]);
    assert.deepEqual(rows, [{ vcap_request_id: 'a-request', app_guid: 'guid-a', response_time_ms: 3 }], id);
  }
});
