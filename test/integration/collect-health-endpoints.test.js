// Issue 25 item 1: `collect`'s liveness (/livez) and readiness (/readyz) endpoints on the real process.
// /livez fails only once the event loop stood still past its limit (here: the process frozen with
// SIGSTOP), never for PostgreSQL; /readyz fails only while the drain buffer is full and PostgreSQL is away.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { MAX_LOOP_STALL_MS } from '../../collector/metrics-server.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';
import { logMessage, postUntilAccepted, rtrEnvelope } from '../support/syslog-agent-standin.js';

const TOKEN = 'drain-token-health-0123456789';
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

describe('paasmon collect: /livez and /readyz', { timeout: 180_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {ReturnType<typeof import('../support/cli.js').startCli> | undefined} */
  let collector;

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 2) })]);
  });
  after(async () => {
    await sim?.close();
    await db?.stop();
  });
  afterEach(async () => {
    if (collector?.child.exitCode === null) {
      collector.child.kill('SIGCONT');
      collector.child.kill('SIGKILL');
      await collector.exited;
    }
  });

  /** @param {string} url */
  const get = async (url) => {
    const response = await fetch(url);
    return { status: response.status, body: /** @type {any} */ (await response.json()) };
  };

  it('fails /livez after the process stood still past the limit, and not for a database outage', async () => {
    const started = await startCollect(collectEnv(db, sim, { POLL_SCHEDULE: '* * * * * *' }));
    collector = started.cli;
    const { base } = started;
    await sleep(1000);
    assert.equal((await get(`${base}/livez`)).status, 200);

    await db.stopServer();
    try {
      await waitFor(async () => (await fetch(`${base}/healthz`)).status === 503, { what: '/healthz 503' });
      const live = await get(`${base}/livez`);
      assert.equal(live.status, 200, 'PostgreSQL away is no reason to restart');
      assert.equal(live.body.status, 'ok');
    } finally {
      await db.startServer();
    }

    // Frozen longer than the limit: as a wedged event loop, nothing runs meanwhile.
    const pid = /** @type {number} */ (collector.child.pid);
    process.kill(pid, 'SIGSTOP');
    await sleep(MAX_LOOP_STALL_MS + 1500);
    process.kill(pid, 'SIGCONT');
    const stalled = await get(`${base}/livez`);
    assert.equal(stalled.status, 503, JSON.stringify(stalled.body));
    assert.equal(stalled.body.status, 'failing');
    assert.ok(stalled.body.eventLoop.longestStallMs > MAX_LOOP_STALL_MS, JSON.stringify(stalled.body));
    assert.equal(stalled.body.eventLoop.maxStallMs, MAX_LOOP_STALL_MS);
    assert.equal(collector.child.exitCode, null, 'the endpoint reports; restarting is the platform’s call');
  });

  it('fails /readyz only while the drain buffer is full and PostgreSQL is away', async () => {
    const started = await startCollect(collectEnv(db, sim, { DRAIN_TOKEN: TOKEN, DRAIN_BUFFER_RECORDS: '200' }));
    collector = started.cli;
    const { base } = started;
    const drainUrl = `${base}/drain?token=${TOKEN}`;
    const requests = makeRequests(300, Date.parse('2026-11-25T09:00:00Z'), 10_000, 'readyz');
    const body = (/** @type {typeof requests} */ rs) =>
      Buffer.concat(rs.map((r) => logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app }))));
    const drain = async () => (await get(`${base}/healthz`)).body.sources['syslog-drain'];
    await postUntilAccepted(drainUrl, body(requests.slice(0, 20)));
    await waitFor(async () => (await drain()).inserted === 20, { what: 'the first body stored' });
    assert.equal((await get(`${base}/readyz`)).status, 200);

    await db.stopServer();
    try {
      await waitFor(async () => (await fetch(`${base}/healthz`)).status === 503, { what: '/healthz 503' });
      assert.equal((await get(`${base}/readyz`)).status, 200, 'room left: still routed');
      // One body fills the buffer a slice at a time; the rest of it is answered 503 (the agent sends it again).
      assert.equal(await postUntilAccepted(drainUrl, body(requests.slice(20, 280)), { maxRetries: 0 }), 503);
      assert.ok((await drain()).buffered >= 200);
      const taken = await drain();
      assert.ok(taken.refused > 0 && taken.accepted + taken.refused === 280, JSON.stringify(taken));
      const full = await get(`${base}/readyz`);
      assert.equal(full.status, 503, JSON.stringify(full.body));
      assert.equal(full.body.status, 'not_ready');
      assert.match(full.body.reason, /drain buffer is full and PostgreSQL is unreachable/);
      assert.equal((await get(`${base}/livez`)).status, 200, 'not ready, but alive: no restart');
    } finally {
      await db.startServer();
    }
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, {
      timeoutMs: 60_000,
      what: 'ready again once the buffer is written',
    });
    // The agent's resend of the refused body: what was taken of it the first time is not stored twice.
    assert.equal(await postUntilAccepted(drainUrl, body(requests.slice(20, 280))), 204);
    await waitFor(async () => (await drain()).inserted === 280, { timeoutMs: 60_000, what: 'every request stored' });
  });
});
