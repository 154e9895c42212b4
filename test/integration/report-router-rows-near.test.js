// run_request_figures joins a run's requests with the router records by hash when the router records
// near the run (within an hour of its span) are not many times its requests, however many other days
// hold: a run beside a big table of other days is not looked up request by request; and a run in a
// busy hour of its day (many records near it, few over the day) is, not joined by a read of the day;
// a run just written, its day analyzed but not the partitioned tables, is joined by hash too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { preparePartitions } from '../../exporters/postgres/schema/partitions.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

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
 * A run of 2,000 requests of app shop from `start`, 60 s long.
 * @param {string} label @param {Date} start
 */
const seedShopRun = (label, start) =>
  seedRun(db.query, { label, app: 'shop', start, spanS: 60, successful: 2000, durationSql: '1 + i % 17' });

/**
 * 100,000 router records of another app, one every `stepMs` from `from`, ids `prefix-i`.
 * @param {string} from @param {number} stepMs @param {string} prefix
 */
const insertOtherAppRecords = (from, stepMs, prefix) =>
  db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, vcap_request_id,
       correlation_id)
    SELECT $1::timestamptz + i * $2 * interval '1 millisecond', 'guid-other', 'other', '/', 200, 1,
           $3 || '-' || i, $3 || '-' || i
    FROM generate_series(1, 100000) i`,
    [from, stepMs, prefix],
  );

// First: the plan without statistics depends on what else the tables hold (the later tests add other days).
test('a run is joined by hash when the partitioned tables have no statistics of their own', async () => {
  const runId = await seedShopRun('run just imported', new Date('2026-06-03T10:00:00Z'));
  await preparePartitions(db.pool);
  const day = 'router_requests_p20260603';
  await db.query(`ANALYZE ${day}, loadgen_requests_p20260603`);
  // As after a bulk write: the day's partitions analyzed, the parents not (autovacuum never does).
  await db.query(
    `DELETE FROM pg_statistic WHERE starelid IN ('router_requests'::regclass, 'loadgen_requests'::regclass)`,
  );
  const { summary, scans } = await summaryAndScans(runId, day);
  assert.deepEqual(summary, { requests: 2000, router_p50_ms: 0.8 * 9, matched_ratio: 1 });
  assert.ok(scans.seq >= 1 && scans.idx < 100, `scans of ${day}: ${JSON.stringify(scans)}`);
  // The join's setting is the function's own: the session's is as it was.
  const client = await db.pool.connect();
  try {
    await client.query('SET enable_nestloop = off');
    await client.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId]);
    assert.equal((await client.query('SHOW enable_nestloop')).rows[0].enable_nestloop, 'off');
    await client.query('RESET enable_nestloop');
    await client.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
    await client.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId]);
    assert.equal((await client.query('SHOW enable_nestloop')).rows[0].enable_nestloop, 'on');
  } finally {
    client.release();
  }
});

test('a run among many router records of other days is joined by hash, with the same figures', async () => {
  const runId = await seedShopRun('run of June', new Date('2026-06-01T10:00:00Z'));
  // 100,000 router records of March: 50 times the run's requests, but none of them near it.
  await insertOtherAppRecords('2026-03-01T00:00:00Z', 10, 'march');
  await preparePartitions(db.pool); // the rows into their days' partitions, analyzed
  const june = 'router_requests_p20260601';
  const { rows: parts } = await db.query('SELECT relname FROM pg_class WHERE relname = $1', [june]);
  assert.equal(parts.length, 1, 'the run day has a partition of its own');
  const { summary, scans } = await summaryAndScans(runId, june);
  // Durations 1 + i % 17 ms, router response time 0.8 of it: the median of 1..17 (near uniform) is 9.
  assert.deepEqual(summary, { requests: 2000, router_p50_ms: 0.8 * 9, matched_ratio: 1 });
  // One read of the June partition for the join, not 2,000 index lookups.
  assert.ok(scans.seq >= 1 && scans.idx < 100, `scans of ${june}: ${JSON.stringify(scans)}`);
});

/**
 * The run's figures and the scans of a partition they took, in one transaction.
 * @param {number} runId @param {string} partition
 */
async function summaryAndScans(runId, partition) {
  const { result, added } = await countersAcross(
    db.pool,
    'SELECT coalesce(seq_scan, 0)::int AS seq, coalesce(idx_scan, 0)::int AS idx ' +
      'FROM pg_stat_xact_user_tables WHERE relname = $1',
    [partition],
    (client) =>
      client.query('SELECT requests, router_p50_ms, matched_ratio FROM run_summary WHERE run_id = $1', [runId]),
  );
  return { summary: result.rows[0], scans: added };
}

test('a run in a busy hour of other apps is looked up request by request, with the same figures', async () => {
  const runId = await seedShopRun('run of a busy hour', new Date('2026-06-02T10:00:00Z'));
  // 100,000 router records of another app between 09:30 and 10:30: 50 times the run's requests,
  // all within the hour around it, though a share of the day in proportion to time would be 4,000.
  await insertOtherAppRecords('2026-06-02T09:30:00Z', 18, 'busy');
  await preparePartitions(db.pool);
  const day = 'router_requests_p20260602';
  await db.query(`ANALYZE ${day}`);
  const { summary, scans } = await summaryAndScans(runId, day);
  assert.deepEqual(summary, { requests: 2000, router_p50_ms: 0.8 * 9, matched_ratio: 1 });
  // Each request's record looked up by its id, no read of the day's 102,000 records.
  assert.ok(scans.seq === 0 && scans.idx >= 2000, `scans of ${day}: ${JSON.stringify(scans)}`);
});
