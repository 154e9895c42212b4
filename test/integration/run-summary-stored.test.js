// run_summary keeps the request figures of an ended run (run_summary_figures) and reads them back
// while nothing they were computed from has changed, so a dashboard's panels on a big run read a
// row instead of joining its requests again; any write near the run, other view files or a live
// run compute them again. Computations counted by PostgreSQL itself (track_functions: the calls of
// run_request_figures).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/migrate.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const HOUR_MS = 3_600_000;
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
let day = 0;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(() => db?.stop());

/** An ended run on a day of its own. */
async function endedRun() {
  return seedRun(db.query, {
    label: `run ${day}`,
    app: 'shop',
    instances: 1,
    coresPerInstance: 1,
    start: new Date(Date.parse('2026-05-01T08:30:00Z') + day++ * 24 * HOUR_MS),
    spanS: 20,
    successful: 200,
    serverErrors: 3,
    durationSql: '2 + (i % 17)',
    cpuPolls: [40],
  });
}

/**
 * run_summary of the run, and how many times its figures were computed for it.
 * @param {number} runId @param {string[]} [settings] statements run first in the session's transaction
 * @returns {Promise<{ row: any, computed: number }>}
 */
async function summary(runId, settings = []) {
  const { result, added } = await countersAcross(
    db.pool,
    "SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_xact_user_functions WHERE funcname = 'run_request_figures'",
    [],
    async (client) => {
      for (const statement of settings) await client.query(statement);
      return client.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]);
    },
  );
  return { row: result.rows[0], computed: added.calls };
}

/** @param {number} runId */
const storedRows = async (runId) =>
  (await db.query('SELECT run_id FROM run_summary_figures WHERE run_id = $1', [runId])).rows.length;

test('an ended run is computed once, then read back with the same figures as computed now', async () => {
  const runId = await endedRun();
  const first = await summary(runId);
  const second = await summary(runId);
  assert.deepEqual([first.computed, second.computed], [1, 0]);
  assert.deepEqual(second.row, first.row);
  const { rows } = await db.query('SELECT * FROM run_request_figures($1)', [runId]);
  assert.equal(Number(second.row.requests), 203);
  assert.equal(Number(second.row.requests), Number(rows[0].requests));
  assert.equal(second.row.e2e_p95_ms, rows[0].e2e_pct[2]);
  assert.equal(second.row.router_p99_ms, rows[0].router_pct[2]);
});

test('a session of another time zone and date style reads back what another session stored', async () => {
  const runId = await endedRun();
  await summary(runId);
  const other = await summary(runId, [`SET LOCAL TimeZone = 'America/New_York'`, `SET LOCAL DateStyle = 'German'`]);
  assert.equal(Number(other.row.requests), 203);
  assert.equal(other.computed, 0);
});

test('a router record written within the hour around the requests computes the run again, with that record', async () => {
  const runId = await endedRun();
  await db.query(`DELETE FROM router_requests WHERE correlation_id = $1`, [`${runId}-7`]);
  assert.equal(Math.round((await summary(runId)).row.matched_ratio * 203), 202);
  const { rows } = await db.query('SELECT started_at FROM loadgen_requests WHERE correlation_id = $1', [`${runId}-7`]);
  // As the page writer writes: its rows noted at their time, 50 minutes before the request, in an hour that
  // the 5 minutes around the run (the report's mark) do not meet.
  const at = new Date(rows[0].started_at.getTime() - 50 * 60_000);
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT paasmon_noting_writes('router_requests')`);
    await client.query(
      `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, vcap_request_id,
         correlation_id) VALUES ($1, 'guid-shop', 'shop', '/api', 200, 4, 'late', $2)`,
      [at, `${runId}-7`],
    );
    await client.query(`SELECT paasmon_note_write('router_requests', $1, $1)`, [at]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const again = await summary(runId);
  assert.equal(again.computed, 1);
  assert.equal(Math.round(again.row.matched_ratio * 203), 203);
});

test('writes hours away from the run, and instance samples, leave its stored figures', async () => {
  const runId = await endedRun();
  await summary(runId);
  const { rows } = await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [runId]);
  const later = new Date(rows[0].ended_at.getTime() + 3 * HOUR_MS);
  await db.query(`SELECT paasmon_note_write('router_requests', $1, $1)`, [later]);
  await db.query(`SELECT paasmon_note_write('instance_samples', $1, $1)`, [rows[0].ended_at]);
  assert.equal((await summary(runId)).computed, 0);
});

test('a live run is computed at every call and never kept', async () => {
  const runId = await endedRun();
  await db.query('UPDATE test_runs SET ended_at = NULL WHERE id = $1', [runId]);
  assert.deepEqual([(await summary(runId)).computed, (await summary(runId)).computed], [1, 1]);
  assert.equal(await storedRows(runId), 0);
});

test('other view files compute the run again', async () => {
  const runId = await endedRun();
  await summary(runId);
  const { rows } = await db.query('SELECT digest FROM paasmon_view_files');
  try {
    await db.query(`UPDATE paasmon_view_files SET digest = 'other'`);
    assert.deepEqual([(await summary(runId)).computed, (await summary(runId)).computed], [1, 0]);
  } finally {
    await db.query('UPDATE paasmon_view_files SET digest = $1', [rows[0].digest]);
  }
});

test('a role that may only read keeps the figures it computed; a read-only transaction gets them unkept', async () => {
  const [byReader, readOnly] = [await endedRun(), await endedRun()];
  await db.query(`CREATE ROLE summary_reader LOGIN PASSWORD 'reader'`);
  await db.query('GRANT SELECT ON ALL TABLES IN SCHEMA public TO summary_reader');
  const reader = new pg.Pool({ connectionString: db.url.replace('paasmon:test-password', 'summary_reader:reader') });
  try {
    const { rows } = await reader.query('SELECT requests FROM run_summary WHERE run_id = $1', [byReader]);
    assert.equal(Number(rows[0].requests), 203);
    assert.equal(await storedRows(byReader), 1);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN READ ONLY');
      const inside = await client.query('SELECT requests FROM run_summary WHERE run_id = $1', [readOnly]);
      await client.query('COMMIT');
      assert.equal(Number(inside.rows[0].requests), 203);
    } finally {
      client.release();
    }
    assert.equal(await storedRows(readOnly), 0);
  } finally {
    await reader.end();
  }
});

test('a reader does not wait for a transaction that is storing the same run', async () => {
  const runId = await endedRun();
  const storing = await db.pool.connect();
  const reading = await db.pool.connect();
  try {
    await storing.query('BEGIN');
    await storing.query('SELECT * FROM run_summary WHERE run_id = $1', [runId]);
    await reading.query(`SET statement_timeout = '5s'`);
    const { rows } = await reading.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId]);
    assert.equal(Number(rows[0].requests), 203);
    await storing.query('COMMIT');
  } finally {
    storing.release();
    reading.release(true);
  }
  assert.equal((await summary(runId)).computed, 0);
});
