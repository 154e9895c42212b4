// Work spread over connections on one snapshot (exporters/postgres/queries/shared-snapshot.js), against a real
// PostgreSQL: a helper connection sees the data of the exporting transaction, not a row committed since;
// a pool without a free connection leaves all the work to the first client; a failure of one work is
// thrown once every work has ended.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { onSharedSnapshot } from '../../exporters/postgres/queries/shared-snapshot.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

before(async () => {
  db = await startTestDatabase();
  await db.query('CREATE TABLE counted (n int)');
  await db.query('INSERT INTO counted VALUES (1)');
});
after(() => db?.stop());

/**
 * Runs `items` through onSharedSnapshot from a transaction that read `counted` before another row was
 * committed; each item records the backend that took it and the rows it saw.
 * @param {pg.Pool} pool @param {number[]} items @param {(item: number) => void} [each]
 */
async function shareOut(pool, items, each = () => {}) {
  const client = await pool.connect();
  /** @type {Array<{ item: number, pid: number, rows: number }>} */
  const seen = [];
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query('SELECT count(*) FROM counted');
    await db.query('INSERT INTO counted VALUES (2)');
    const queue = [...items];
    const working = await onSharedSnapshot(pool, client, items.length - 1, async (worker) => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const { rows } = await worker.query(
          'SELECT pg_backend_pid() AS pid, count(*)::int AS rows, pg_sleep(0.2) FROM counted',
        );
        seen.push({ item, pid: rows[0].pid, rows: rows[0].rows });
        each(item);
      }
    });
    return { working, seen };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
    await db.query('DELETE FROM counted WHERE n = 2');
  }
}

test('a helper connection reads the snapshot of the transaction that shares it out', async () => {
  const pool = new pg.Pool({ connectionString: db.url, max: 3 });
  try {
    const { working, seen } = await shareOut(pool, [1, 2, 3, 4, 5, 6]);
    assert.equal(working, 3);
    assert.deepEqual(seen.map((s) => s.item).sort(), [1, 2, 3, 4, 5, 6]);
    assert.equal(new Set(seen.map((s) => s.pid)).size, 3, 'three backends took items');
    // The row committed after the first read is in no helper's snapshot.
    assert.deepEqual([...new Set(seen.map((s) => s.rows))], [1]);
  } finally {
    await pool.end();
  }
});

test('a pool without a free connection leaves every item to the first client', async () => {
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const { working, seen } = await shareOut(pool, [1, 2, 3]);
    assert.equal(working, 1);
    assert.deepEqual(
      seen.map((s) => s.item),
      [1, 2, 3],
    );
    assert.equal(new Set(seen.map((s) => s.pid)).size, 1);
  } finally {
    await pool.end();
  }
});

test("one work's failure is thrown after the others have taken every item", async () => {
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  /** @type {number[]} */
  const done = [];
  try {
    await assert.rejects(
      shareOut(pool, [1, 2, 3, 4, 5], (item) => {
        if (item === 2) throw new Error('item 2 failed');
        done.push(item);
      }),
      /item 2 failed/,
    );
    assert.deepEqual(done.sort(), [1, 3, 4, 5]);
  } finally {
    await pool.end();
  }
});
