// Collectors side by side, started with no setting (`cf scale` alone): two or three share the apps,
// each app polled once per scheduled poll (counted at the Cloud Controller stand-in, timed within
// the slot); a stopped one's apps are polled by the others at the next slot, a killed one's are
// covered in each slot and polled at once after its heartbeat expired; two collectors following one
// router log read each line once (one holder of the checkpoint). The tables alone:
// collector-claims.test.js.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { PEER_LEASE_INTERVALS } from '../../collector/pipeline/claims.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';

// Enough apps that each of three collectors has a share (random peer ids).
const APPS = 24;
const INSTANCES = 2;
const INTERVAL_MS = 2000;
/** The part of a slot the apps' preferred collectors poll in; the cover comes after it. */
const GRACE_MS = INTERVAL_MS / 3;

describe('collectors side by side', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Array<Awaited<ReturnType<typeof startCollect>>>} */
  let running = [];
  /** @type {Array<{ path: string, at: number }>} every request to the stand-in, timed */
  let calls = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-sharing-'));

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(APPS, INSTANCES) })]);
    sim.counters.byPath = new Proxy(sim.counters.byPath, {
      set(target, key, value) {
        calls.push({ path: String(key), at: Date.now() });
        return Reflect.set(target, key, value);
      },
    });
    // Migrated before the collectors start, so they share from their first poll.
    const pool = new pg.Pool({ connectionString: db.url });
    await migrate(pool, pino({ level: 'silent' })).finally(() => pool.end());
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
    calls = [];
    await db.query(
      'TRUNCATE instance_samples, router_requests, ingest_checkpoints, poll_claims, checkpoint_holders, collector_peers',
    );
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
  /** Waits until `offset` ms into a slot. @param {number} offset */
  const intoSlot = (offset) => sleep((offset - (Date.now() % INTERVAL_MS) + INTERVAL_MS) % INTERVAL_MS);
  /** Waits for the next slot to begin; answers its start. */
  const nextSlot = async () => {
    const next = Math.ceil((Date.now() + 1) / INTERVAL_MS) * INTERVAL_MS;
    await sleep(next - Date.now());
    return next;
  };

  /**
   * The stats requests of `slots` slots from `from` (one web process per app: one request per poll of
   * an app): per app name, per slot, the ms into the slot of each.
   * @param {number} from @param {number} slots @returns {Map<string, number[][]>}
   */
  const pollsIn = (from, slots) => {
    const apps = new Map(sim.state.apps.map((a) => [`/v3/processes/${a.processes[0].guid}/stats`, a.name]));
    const polls = new Map(
      sim.state.apps.map((a) => [a.name, Array.from({ length: slots }, () => /** @type {number[]} */ ([]))]),
    );
    for (const { path: p, at } of calls) {
      const app = apps.get(p);
      const i = Math.floor((at - from) / INTERVAL_MS);
      if (app && i >= 0 && i < slots) polls.get(app)?.[i].push(at - from - i * INTERVAL_MS);
    }
    return polls;
  };
  /** Polls per app per interval over all apps and slots. @param {Map<string, number[][]>} polls */
  const perInterval = (polls) => {
    const counts = [...polls.values()].flat().map((slot) => slot.length);
    return counts.reduce((a, b) => a + b, 0) / counts.length;
  };
  /** Every app polled exactly once in every slot. @param {Map<string, number[][]>} polls @param {string} what */
  const oncePerSlot = (polls, what) => {
    const figure = perInterval(polls).toFixed(2);
    for (const [app, slots] of polls) {
      const counts = slots.map((s) => s.length);
      assert.ok(
        counts.every((n) => n === 1),
        `${what}: ${figure} polls per app per interval; ${app} per slot: ${counts}`,
      );
    }
  };
  /** The apps polled later than the grace in each slot. @param {Map<string, number[][]>} polls @param {number} i */
  const lateIn = (polls, i) => [...polls].filter(([, slots]) => slots[i].some((ms) => ms >= GRACE_MS)).map(([a]) => a);
  /** How many collectors claimed polls in each slot of the window. @param {number} from @param {number} slots */
  const claimers = async (from, slots) => {
    const { rows } = await db.query(
      `SELECT count(DISTINCT holder)::int AS n FROM poll_claims
        WHERE slot >= $1 AND slot < $2 GROUP BY slot ORDER BY slot`,
      [new Date(from), new Date(from + slots * INTERVAL_MS)],
    );
    return rows.map((r) => r.n);
  };
  const livePeers = async () =>
    (await db.query('SELECT count(*)::int AS n FROM collector_peers WHERE expires_at > now()')).rows[0].n;

  it('two collectors started with no setting poll each app once per interval', async () => {
    await Promise.all([start({}), start({})]);
    await slotsPass(2);
    const from = await nextSlot();
    await slotsPass(4);
    await intoSlot(1500);
    const polls = pollsIn(from, 4);
    oncePerSlot(polls, 'two collectors');
    assert.equal(perInterval(polls), 1);
    assert.deepEqual(await claimers(from, 4), [2, 2, 2, 2], 'both took a share in every slot');
    assert.equal(await livePeers(), 2);
    for (const c of running) await stop(c);
    assert.equal(await livePeers(), 0, 'a collector that stops removes its heartbeat');
    for (const [guid, slots] of await storedSlots()) {
      for (const [ts, n] of slots) assert.equal(n, INSTANCES, `${guid} at ${new Date(ts).toISOString()}`);
      assert.ok(
        [...slots.keys()].every((ts) => ts % INTERVAL_MS === 0),
        'samples carry the cron slot, whoever polled',
      );
    }
  });

  it('three share the apps; a stopped one is replaced at the next slot, a killed one within its lease', async () => {
    const [first, second, third] = await Promise.all([start({}), start({}), start({})]);
    await slotsPass(2);
    let from = await nextSlot();
    await slotsPass(3);
    await intoSlot(1200);
    oncePerSlot(pollsIn(from, 3), 'three collectors');
    assert.deepEqual(await claimers(from, 3), [3, 3, 3], 'each of the three took a share in every slot');

    await stop(third);
    assert.equal(await livePeers(), 2, 'the stopped collector left at once');
    from = await nextSlot();
    await slotsPass(3);
    await intoSlot(1200);
    let polls = pollsIn(from, 3);
    oncePerSlot(polls, 'after a graceful stop');
    for (const i of [0, 1, 2]) assert.deepEqual(lateIn(polls, i), [], `slot ${i}: every app polled at the slot`);
    assert.deepEqual(await claimers(from, 3), [2, 2, 2]);

    second.cli.child.kill('SIGKILL');
    const killedAt = Date.now();
    await second.cli.exited;
    from = await nextSlot();
    const slots = PEER_LEASE_INTERVALS + 2;
    await slotsPass(slots);
    await intoSlot(1200);
    // The killed collector's heartbeat is the one the survivor has not renewed.
    const { rows } = await db.query('SELECT min(expires_at) AS at, count(*)::int AS n FROM collector_peers');
    const expiresAt = rows[0].at.getTime();
    assert.equal(rows[0].n, 2, 'a killed collector leaves its heartbeat to expire');
    assert.ok(expiresAt - killedAt <= PEER_LEASE_INTERVALS * INTERVAL_MS, 'it expires within one lease');
    polls = pollsIn(from, slots);
    oncePerSlot(polls, 'after a kill');
    for (let i = 0; i < slots; i += 1) {
      const begins = from + i * INTERVAL_MS;
      // Until the lease ends, the killed one's apps are covered after the grace; then polled at the slot.
      if (begins + 200 < expiresAt) assert.ok(lateIn(polls, i).length > 0, `slot ${i}: its share covered`);
      if (begins >= expiresAt) assert.deepEqual(lateIn(polls, i), [], `slot ${i}: every app polled at the slot`);
    }
    assert.equal(await livePeers(), 1);
    await stop(first);
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
});
