// paasmon correlate's counts from one join of a run's requests with the router records near it:
// each count checked against a computation in JavaScript over every row, with correlation ids the
// router logged twice, requests whose record is hours away, other traffic and an overlapping run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const HOUR_MS = 3_600_000;
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(async () => {
  await db?.stop();
});

/**
 * The counts of one run as correlate defines them, from every row: matched, a request with a router
 * record within an hour of the run (first send less an hour to last response plus an hour);
 * router_only, a record of the run's app inside the run's time no request of an overlapping run claims.
 * @param {number} runId
 */
async function countsInJs(runId) {
  const { rows: runs } = await db.query('SELECT id, app_name, started_at, ended_at FROM test_runs');
  const { rows: requests } = await db.query(
    'SELECT run_id, correlation_id, started_at, duration_ms FROM loadgen_requests',
  );
  const { rows: records } = await db.query('SELECT correlation_id, app_name, received_at FROM router_requests');
  const run = runs.find((r) => Number(r.id) === runId);
  const own = requests.filter((r) => Number(r.run_id) === runId);
  const first = Math.min(...own.map((r) => r.started_at.getTime()));
  const last = Math.max(...own.map((r) => r.started_at.getTime() + r.duration_ms));
  const from = Math.min(first, run.started_at.getTime()) - HOUR_MS;
  const to = Math.max(last, run.ended_at.getTime()) + HOUR_MS;
  const near = records.filter((x) => x.received_at.getTime() >= from && x.received_at.getTime() <= to);
  const nearIds = new Set(near.map((x) => x.correlation_id));
  const slack = 5 * 60_000;
  const claimants = new Set(
    runs
      .filter((o) => o.started_at.getTime() <= run.ended_at.getTime() + slack)
      .filter((o) => (o.ended_at?.getTime() ?? Infinity) >= run.started_at.getTime() - slack)
      .map((o) => Number(o.id)),
  );
  const claimed = new Set(
    requests
      .filter((r) => claimants.has(Number(r.run_id)))
      .filter((r) => r.started_at.getTime() >= from && r.started_at.getTime() <= to)
      .map((r) => r.correlation_id),
  );
  const matched = own.filter((r) => nearIds.has(r.correlation_id)).length;
  const routerOnly = records.filter(
    (x) =>
      x.app_name === run.app_name &&
      x.received_at.getTime() >= run.started_at.getTime() &&
      x.received_at.getTime() <= run.ended_at.getTime() &&
      !claimed.has(x.correlation_id),
  ).length;
  return { requests: own.length, matched, loadgen_only: own.length - matched, router_only: routerOnly };
}

/** @param {number} runId */
async function counts(runId) {
  const [row] = await correlationCounts(db.pool, runId);
  return { requests: row.requests, matched: row.matched, loadgen_only: row.loadgen_only, router_only: row.router_only };
}

test('correlate: counts as a computation over every row, with ids logged twice and records hours away', async () => {
  const start = new Date('2026-05-04T10:00:00Z');
  const runId = await seedRun(db.query, { label: 'a', app: 'shop', start, spanS: 60, successful: 300 });
  const overlapping = await seedRun(db.query, {
    label: 'b',
    app: 'shop',
    start: new Date(start.getTime() + 20_000),
    spanS: 20,
    successful: 40,
  });
  // The app forwarded the header of 25 requests on a call of its own: a second record of their ids.
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, vcap_request_id,
       correlation_id)
    SELECT received_at + interval '3 milliseconds', 'guid-stock', 'stock', '/stock', 200, 1, vcap_request_id || '-n',
           correlation_id
    FROM router_requests WHERE correlation_id LIKE $1 || '-%' ORDER BY received_at LIMIT 25`,
    [runId],
  );
  // 10 requests whose only router record is three hours later (a router log of the same ids from
  // another day, or a clock set wrong): not theirs, as router_record (the report) sees it too.
  await db.query(
    `UPDATE router_requests SET received_at = received_at + interval '3 hours'
    WHERE correlation_id IN (SELECT correlation_id FROM loadgen_requests WHERE run_id = $1
                             ORDER BY started_at DESC LIMIT 10)`,
    [runId],
  );
  // Other traffic inside the run, and records of ids no request has.
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, vcap_request_id,
       correlation_id)
    SELECT $1::timestamptz + i * interval '5 seconds', 'guid-shop', 'shop', '/other', 200, 1, 'other-' || i,
           CASE WHEN i % 2 = 0 THEN 'other-' || i END
    FROM generate_series(1, 9) i`,
    [start],
  );
  const expected = await countsInJs(runId);
  assert.deepEqual(await counts(runId), expected);
  assert.deepEqual(expected, { requests: 300, matched: 290, loadgen_only: 10, router_only: 9 });
  assert.deepEqual(await counts(overlapping), await countsInJs(overlapping));
  // correlate's matched is the report's router_records over the whole run.
  const {
    rows: [report],
  } = await db.query('SELECT requests, router_records FROM run_comparison($1::bigint[], 0)', [`{${runId}}`]);
  assert.deepEqual([report.requests, report.router_records], [300, 290]);
});

test('correlate: a run without duplicate ids gives the same counts (the one-pass join)', async () => {
  const start = new Date('2026-05-06T10:00:00Z');
  const runId = await seedRun(db.query, { label: 'c', app: 'cart', start, spanS: 30, successful: 200, timeouts: 8 });
  await db.query(`DELETE FROM router_requests WHERE correlation_id IN ($1 || '-3', $1 || '-7')`, [runId]);
  const expected = await countsInJs(runId);
  assert.deepEqual(await counts(runId), expected);
  assert.deepEqual(expected, { requests: 208, matched: 198, loadgen_only: 10, router_only: 0 });
});
