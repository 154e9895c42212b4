// loadgen_requests keeps to existing runs without a per-row foreign key (migration 008): rows for
// a missing run, inserted or moved there, are refused; deleting or truncating runs takes their rows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
});
after(() => db?.stop());

const newRun = async () =>
  Number((await db.query("INSERT INTO test_runs (label, app_name) VALUES ('t', 'a') RETURNING id")).rows[0].id);
/** @param {number} runId @param {number} n */
const addRows = (runId, n) =>
  db.query(
    `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status)
    SELECT $1::bigint, $1::bigint || '-' || i, now(), 1, 200 FROM generate_series(1, $2) i`,
    [runId, n],
  );
const count = async () => (await db.query('SELECT count(*)::int AS n FROM loadgen_requests')).rows[0].n;

test('rows cannot be moved to a run that does not exist', async () => {
  const runId = await newRun();
  await addRows(runId, 3);
  await assert.rejects(
    db.query('UPDATE loadgen_requests SET run_id = $1 WHERE run_id = $2', [runId + 1000, runId]),
    (/** @type {any} */ err) => err.code === '23503' && /run \d+ does not exist/.test(err.message),
  );
  assert.equal(
    (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId])).rows[0].n,
    3,
  );
});

test('truncating the runs empties their requests: a run numbered again inherits nothing', async () => {
  await addRows(await newRun(), 4);
  assert.ok((await count()) > 0);
  await db.query('TRUNCATE test_runs RESTART IDENTITY CASCADE');
  assert.equal(await count(), 0);
  const first = await newRun();
  assert.equal(first, 1);
  assert.equal((await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = 1')).rows[0].n, 0);
});
