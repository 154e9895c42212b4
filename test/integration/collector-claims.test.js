// The tables of collectors side by side, alone: heartbeats (the live peers of a watch), a reader
// lease that fences the checkpoint, poll claims taken once and forgotten after a day.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { saveCheckpoint } from '../../exporters/postgres/claims/checkpoints.js';
import {
  beat,
  claimPolls,
  forgetOldClaims,
  leave,
  takeLease,
  withLease,
} from '../../exporters/postgres/claims/claims.js';
import { withClient } from '../../exporters/postgres/client.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';

describe('collector claims in PostgreSQL', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {pg.Pool} */
  let pool;

  before(async () => {
    db = await startTestDatabase();
    pool = new pg.Pool({ connectionString: db.url });
    await migrate(pool, pino({ level: 'silent' }));
  });
  after(async () => {
    await pool.end();
    await db.stop();
  });

  it('a heartbeat answers the live peers of its watch; a peer that leaves or expires is not one', async () => {
    const minute = 60_000;
    assert.deepEqual(await beat(pool, { peer: 'b', watch: 'w', ms: minute }), ['b'], 'itself');
    assert.deepEqual(await beat(pool, { peer: 'c', watch: 'other', ms: minute }), ['c'], 'not another watch');
    assert.deepEqual(await beat(pool, { peer: 'x', watch: 'w', ms: 50 }), ['b', 'x']);
    // Two hours past its end: removed by the next heartbeat of anyone.
    await beat(pool, { peer: 'old', watch: 'w', ms: -2 * 3_600_000 });
    await sleep(100);
    assert.deepEqual(await beat(pool, { peer: 'a', watch: 'w', ms: minute }), ['a', 'b'], 'x expired');
    await leave(pool, 'b');
    assert.deepEqual(await beat(pool, { peer: 'a', watch: 'w', ms: minute }), ['a'], 'b left');
    const { rows } = await db.query('SELECT peer FROM collector_peers ORDER BY peer');
    assert.deepEqual(
      rows.map((r) => r.peer),
      ['a', 'c', 'x'],
      'an expired row stays an hour',
    );
  });

  it('a collector whose reader lease expired cannot move the checkpoint', async () => {
    /** @param {string} holder */
    const save = (holder) =>
      withLease({ reader: 'router-log-file', holder }, () =>
        withClient(pool, async (client) => {
          await client.query('BEGIN');
          try {
            await saveCheckpoint(client, { source: 'router-log-file:/x', position: holder });
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          }
        }),
      );
    assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'a', ms: 300 }), true);
    assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'b', ms: 60_000 }), false, 'a holds it');
    await save('a');
    await sleep(500);
    assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'b', ms: 60_000 }), true, 'expired');
    await assert.rejects(save('a'), /another collector took this reader over/);
    await save('b');
    const { rows } = await db.query("SELECT position FROM ingest_checkpoints WHERE source = 'router-log-file:/x'");
    assert.deepEqual(rows, [{ position: 'b' }]);
  });

  it('a poll is claimed once; claims of slots more than a day old are removed as polls go', async () => {
    const slot = new Date('2026-11-22T10:00:00Z');
    const claim = { appGuids: ['a', 'b'], holder: 'x' };
    await claimPolls(pool, { ...claim, slot: new Date(slot.getTime() - 86_400_000 - 1000) });
    assert.deepEqual([...(await claimPolls(pool, { ...claim, slot }))].sort(), ['a', 'b']);
    assert.deepEqual([...(await claimPolls(pool, { ...claim, slot }))], [], 'claimed once');
    await forgetOldClaims(pool, slot);
    const left = await db.query('SELECT slot FROM poll_claims');
    assert.deepEqual(
      left.rows.map((r) => r.slot.getTime()),
      [slot.getTime(), slot.getTime()],
    );
  });
});
