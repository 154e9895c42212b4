// run_summary reads the request figures of a run from its stored figures (run_figures, stored by
// the writers) while they are current, so a dashboard's panels on a big run read a row instead of
// joining its requests again; a write near the run, other view files or a live run compute them
// again, and no reader ever stores them. Computations counted by PostgreSQL itself
// (track_functions: the calls of run_request_figures).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { refreshRunFigures } from '../../exporters/postgres/schema/run-figures.js';
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

/** An ended run on a day of its own, its figures stored as the command that ended it stores them. */
async function endedRun() {
  const runId = await seedRun(db.query, {
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
  await keep(runId);
  return runId;
}

/** @param {number} runId */
const keep = (runId) => refreshRunFigures(db.pool, [runId], [0.1]);

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
const isStale = async (runId) =>
  (await db.query('SELECT stale FROM run_figures WHERE run_id = $1', [runId])).rows[0].stale;

test("an ended run's stored figures are read back, the same as computed now", async () => {
  const runId = await endedRun();
  const stored = await summary(runId);
  assert.equal(stored.computed, 0);
  await db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
  const computed = await summary(runId);
  assert.equal(computed.computed, 1);
  assert.deepEqual(stored.row, computed.row);
  const { rows } = await db.query('SELECT * FROM run_request_figures($1)', [runId]);
  assert.equal(Number(stored.row.requests), 203);
  assert.equal(Number(stored.row.requests), Number(rows[0].requests));
  assert.equal(stored.row.e2e_p95_ms, rows[0].e2e_pct[2]);
  assert.equal(stored.row.router_p99_ms, rows[0].router_pct[2]);
  assert.equal((await summary(runId)).computed, 1, 'a reader stores nothing');
});

test('a session of another time zone and date style reads the stored figures alike', async () => {
  const runId = await endedRun();
  const utc = await summary(runId);
  const other = await summary(runId, [`SET LOCAL TimeZone = 'America/New_York'`, `SET LOCAL DateStyle = 'German'`]);
  assert.equal(other.computed, 0);
  assert.deepEqual(other.row, utc.row);
});

test('a router record written within the hour around the run computes the run again, with that record', async () => {
  const runId = await endedRun();
  await db.query(`DELETE FROM router_requests WHERE correlation_id = $1`, [`${runId}-7`]);
  await keep(runId);
  assert.equal(Math.round((await summary(runId)).row.matched_ratio * 203), 202);
  const { rows } = await db.query('SELECT started_at FROM loadgen_requests WHERE correlation_id = $1', [`${runId}-7`]);
  // As the page writer writes: its rows noted at their time, 50 minutes before the request.
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
  await keep(runId);
  const stored = await summary(runId);
  assert.equal(stored.computed, 0);
  assert.deepEqual(stored.row, again.row);
});

test('writes hours away from the run leave its stored figures; instance samples in its window do not', async () => {
  const runId = await endedRun();
  const { rows } = await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [runId]);
  const later = new Date(rows[0].ended_at.getTime() + 3 * HOUR_MS);
  await db.query(`SELECT paasmon_note_write('router_requests', $1, $1)`, [later]);
  assert.equal((await summary(runId)).computed, 0);
  // The run's CPU comes from its instance samples.
  await db.query(`SELECT paasmon_note_write('instance_samples', $1, $1)`, [rows[0].ended_at]);
  assert.equal(await isStale(runId), true);
});

test('a live run is computed at every call and never kept', async () => {
  const runId = await endedRun();
  await db.query('UPDATE test_runs SET ended_at = NULL WHERE id = $1', [runId]);
  assert.deepEqual([(await summary(runId)).computed, (await summary(runId)).computed], [1, 1]);
  assert.deepEqual(await keep(runId), []);
  assert.equal(await isStale(runId), true);
});

test('other view files make every stored figure stale', async () => {
  const runId = await endedRun();
  assert.equal((await summary(runId)).computed, 0);
  await db.query(`UPDATE paasmon_view_files SET digest = 'other'`);
  await migrate(db.pool, pino({ level: 'silent' }), { views: 'changed' });
  assert.equal(await isStale(runId), true);
  assert.equal((await summary(runId)).computed, 1);
});

test('a role that may only read, and a read-only transaction, get the figures', async () => {
  const [stored, computed] = [await endedRun(), await endedRun()];
  await db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [computed]);
  await db.query(`CREATE ROLE summary_reader LOGIN PASSWORD 'reader'`);
  await db.query('GRANT SELECT ON ALL TABLES IN SCHEMA public TO summary_reader');
  const reader = new pg.Pool({ connectionString: db.url.replace('paasmon:test-password', 'summary_reader:reader') });
  try {
    for (const runId of [stored, computed]) {
      const { rows } = await reader.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId]);
      assert.equal(Number(rows[0].requests), 203);
    }
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN READ ONLY');
      const inside = await client.query('SELECT requests FROM run_summary WHERE run_id = ANY ($1)', [
        [stored, computed],
      ]);
      await client.query('COMMIT');
      assert.deepEqual(
        inside.rows.map((row) => Number(row.requests)),
        [203, 203],
      );
    } finally {
      client.release();
    }
  } finally {
    await reader.end();
  }
});

test('a reader does not wait for a transaction that is storing the same run', async () => {
  const runId = await endedRun();
  await db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
  const storing = await db.pool.connect();
  const reading = await db.pool.connect();
  try {
    await storing.query('BEGIN');
    await storing.query('SELECT refresh_run_figures($1)', [runId]);
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
