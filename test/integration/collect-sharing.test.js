// Collectors side by side: two `collect` instances store one sample per instance per scheduled poll;
// with COLLECT_INSTANCES they share the apps (each polled once per slot, counted at the Cloud
// Controller stand-in), a third started and stopped, and one killed, change nothing of that; and
// two collectors following one router log read each line once (one holder of the checkpoint).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/migrate.js';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { saveCheckpoint } from '../../exporters/postgres/checkpoints.js';
import { claimPolls, forgetOldClaims, takeLease, withLease } from '../../exporters/postgres/claims.js';
import { withClient } from '../../exporters/postgres/client.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';

const APPS = 6;
const INSTANCES = 2;
const INTERVAL_MS = 2000;

describe('collectors side by side', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Array<Awaited<ReturnType<typeof startCollect>>>} */
  let running = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-sharing-'));

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(APPS, INSTANCES) })]);
  });
  after(async () => {
    await sim.close();
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const { cli } of running) {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await cli.exited;
    }
    running = [];
    await db.query('TRUNCATE instance_samples, router_requests, ingest_checkpoints, poll_claims, checkpoint_holders');
    for (const key of Object.keys(sim.counters.byPath)) delete sim.counters.byPath[key];
  });

  /** @param {Record<string, string>} env */
  const start = async (env) => {
    const started = await startCollect(collectEnv(db, sim, { POLL_SCHEDULE: '*/2 * * * * *', ...env }));
    running.push(started);
    return started;
  };
  /** @param {Awaited<ReturnType<typeof startCollect>>} collector */
  const stop = async ({ cli }) => {
    cli.child.kill('SIGTERM');
    assert.equal((await cli.exited).code, 0, cli.output.stderr);
  };
  /** Stats requests per app guid at the stand-in (one web process per app). */
  const statsRequests = () =>
    new Map(
      sim.state.apps.map((app) => [app.guid, sim.counters.byPath[`/v3/processes/${app.processes[0].guid}/stats`] ?? 0]),
    );
  /** Per app guid, its slots (ms) with the number of instance samples stored at each. */
  const storedSlots = async () => {
    const { rows } = await db.query(
      'SELECT app_guid::text, ts, count(*)::int AS n FROM instance_samples GROUP BY 1, 2 ORDER BY 1, 2',
    );
    /** @type {Map<string, Map<number, number>>} */
    const slots = new Map(sim.state.apps.map((a) => [a.guid, new Map()]));
    for (const r of rows) slots.get(r.app_guid)?.set(r.ts.getTime(), r.n);
    return slots;
  };
  /** @param {number} n */
  const slotsPass = (n) => sleep(n * INTERVAL_MS);
  /** Waits until `offset` ms into a slot: the slot's polls are done and written by then. @param {number} offset */
  const intoSlot = (offset) => sleep((offset - (Date.now() % INTERVAL_MS) + INTERVAL_MS) % INTERVAL_MS);

  it('without sharing, two collectors still store one sample per instance per scheduled poll', async () => {
    await Promise.all([start({}), start({})]);
    await waitFor(async () => [...(await storedSlots()).values()].every((s) => s.size >= 3), { what: 'three polls' });
    for (const c of running) await stop(c);
    for (const [guid, slots] of await storedSlots()) {
      for (const [ts, n] of slots) assert.equal(n, INSTANCES, `${guid} at ${new Date(ts).toISOString()}`);
      assert.ok(
        [...slots.keys()].every((ts) => ts % INTERVAL_MS === 0),
        'samples carry the cron slot, whoever polled',
      );
    }
    const requests = [...statsRequests().values()].reduce((a, b) => a + b, 0);
    const slots = [...(await storedSlots()).values()].reduce((a, s) => a + s.size, 0);
    assert.ok(requests > slots, `both collectors polled every app (${requests} requests for ${slots} app slots)`);
  });

  it('shares the apps: each polled once per slot, a third joins and leaves, a killed one is covered', async () => {
    const sharing = { COLLECT_INSTANCES: '2' };
    const [first, second] = await Promise.all([
      start({ ...sharing, COLLECT_INSTANCE_INDEX: '0' }),
      start({ ...sharing, COLLECT_INSTANCE_INDEX: '1' }),
    ]);
    await slotsPass(3);
    // The third counts three collectors and polls on every other slot of the two: overlapping schedules.
    const third = await start({ COLLECT_INSTANCES: '3', COLLECT_INSTANCE_INDEX: '2', POLL_SCHEDULE: '*/4 * * * * *' });
    await slotsPass(4);
    await stop(third);
    await slotsPass(2);
    await intoSlot(1500);
    second.cli.child.kill('SIGKILL');
    await second.cli.exited;
    await slotsPass(4);
    await stop(first);

    const requests = statsRequests();
    const stored = await storedSlots();
    const allSlots = [...new Set([...stored.values()].flatMap((s) => [...s.keys()]))].sort((a, b) => a - b);
    assert.ok(allSlots.length >= 10, `slots stored: ${allSlots.length}`);
    /** @type {string[]} */
    const missing = [];
    for (const app of sim.state.apps) {
      const slots = /** @type {Map<number, number>} */ (stored.get(app.guid));
      for (const [ts, n] of slots) assert.equal(n, INSTANCES, `${app.name}: every instance once at ${ts}`);
      assert.equal(requests.get(app.guid), slots.size, `${app.name}: one stats request per slot stored`);
      for (const ts of allSlots) if (!slots.has(ts)) missing.push(`${app.name}@${new Date(ts).toISOString()}`);
    }
    // Only the slot the killed collector had claimed and not polled may lack its apps: covered the slot after.
    const missingSlots = new Set(missing.map((m) => m.split('@')[1]));
    assert.ok(missingSlots.size <= 1, `apps missing in more than the slot of the kill: ${missing.join(', ')}`);
  });

  it('two collectors following one router log read each line once', async () => {
    const file = path.join(dir, 'access.log');
    const requests = makeRequests(60, Date.parse('2026-11-22T09:00:00Z'), 1000, 'sharing');
    fs.writeFileSync(file, '');
    const env = { INGEST_SCHEDULE: '* * * * * *', ROUTER_LOG_FILE: file, ROUTER_LOG_FILE_APP: 'shop' };
    const collectors = await Promise.all([start(env), start(env)]);
    for (let i = 0; i < requests.length; i += 10) {
      fs.appendFileSync(
        file,
        requests
          .slice(i, i + 10)
          .map((r) => `${gorouterLine(r)}\n`)
          .join(''),
      );
      await sleep(700);
    }
    const stored = async () => (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
    await waitFor(async () => (await stored()) === requests.length, { what: 'every line stored' });
    await sleep(2000);
    let read = 0;
    for (const { base } of collectors) {
      const text = await (await fetch(`${base}/metrics`)).text();
      read += Number(/^paasmon_source_records_total\{source="router-log-file"\} (\S+)$/m.exec(text)?.[1] ?? 0);
    }
    for (const c of collectors) await stop(c);
    assert.equal(read, requests.length, 'the lines read by both collectors together: each once');
    assert.equal(await stored(), requests.length);
  });

  it('a collector whose reader lease expired cannot move the checkpoint; a poll is claimed once, old claims go', async () => {
    const pool = new pg.Pool({ connectionString: db.url });
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
    try {
      await migrate(pool, pino({ level: 'silent' }));
      assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'a', ms: 300 }), true);
      assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'b', ms: 60_000 }), false, 'a holds it');
      await save('a');
      await sleep(500);
      assert.equal(await takeLease(pool, { reader: 'router-log-file', holder: 'b', ms: 60_000 }), true, 'expired');
      await assert.rejects(save('a'), /another collector took this reader over/);
      await save('b');
      const { rows } = await db.query("SELECT position FROM ingest_checkpoints WHERE source = 'router-log-file:/x'");
      assert.deepEqual(rows, [{ position: 'b' }]);

      // Claims of slots more than a day old are removed as polls go.
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
    } finally {
      await pool.end();
    }
  });
});
