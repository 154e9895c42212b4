// `paasmon collect` as a syslog drain, fed by a stand-in that sends exactly what the Cloud Foundry
// syslog agent sends (test/support/syslog-agent-standin.js): HTTPS single and batched, TCP octet
// counted and split, TLS, a message over 64 KiB, garbage, agent retries, a PostgreSQL outage.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import pg from 'pg';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../support/cli.js';
import { selfSignedCertificate } from '../support/certificate.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { expectedRow, gorouterLine, makeRequests } from '../support/router-docs.js';
import {
  batchBodies,
  connectTcp,
  gaugeMessages,
  logMessage,
  octetCounted,
  postUntilAccepted,
  rtrEnvelope,
} from '../support/syslog-agent-standin.js';

const TOKEN = 'drain-token-0123456789abcdef';
const START = Date.parse('2026-11-22T09:00:00Z');

/** @param {import('../support/router-docs.js').TruthRequest} r */
const messageOf = (r) =>
  logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app, routerIndex: r.appIndex % 2 }));
/** APP and API lines and gauges for the same apps: what a drain receives besides RTR. @param {number} n */
const otherMessages = (n) =>
  Array.from({ length: n }, (_, i) =>
    i % 2
      ? logMessage({
          timestamp: BigInt(START + i) * 1_000_000n,
          sourceId: 'a-guid',
          instanceId: '0',
          tags: { source_type: 'APP/PROC/WEB', app_name: 'shop' },
          payload: `request ${i} done`,
        })
      : gaugeMessages({
          timestamp: BigInt(START + i) * 1_000_000n,
          sourceId: 'a-guid',
          instanceId: '0',
          tags: {},
          metrics: { cpu: { value: 12.5, unit: 'percentage' } },
        })[0],
  );

describe('paasmon collect as a syslog drain', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {ReturnType<typeof startCli> | undefined} */
  let collector;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-drain-'));

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
  });
  after(async () => {
    await sim.close();
    await db.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });
  afterEach(async () => {
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGKILL');
      await collector.exited;
    }
    collector = undefined;
    await db.query('TRUNCATE router_requests').catch(() => {});
  });

  /** @param {Record<string, string>} [env] */
  async function start(env = {}) {
    const started = await startCollect(collectEnv(db, sim, { DRAIN_TOKEN: TOKEN, DRAIN_TCP_PORT: '0', ...env }));
    collector = started.cli;
    return { base: started.base, tcpPort: Number(started.drainTcpPort) };
  }

  const rows = async () =>
    (
      await db.query(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at,
      app_name, app_guid, app_index, status, response_time_ms, gorouter_time_ms, correlation_id, vcap_request_id FROM router_requests ORDER BY vcap_request_id`)
    ).rows;
  /** @param {import('../support/router-docs.js').TruthRequest[]} truth */
  const expected = (truth) => truth.map(expectedRow).sort((a, b) => a.vcap_request_id.localeCompare(b.vcap_request_id));
  /** @param {string} base */
  const health = async (base) =>
    /** @type {any} */ (await (await fetch(`${base}/healthz`)).json()).sources['syslog-drain'];

  it('stores every RTR request once from HTTPS (single, batched), TCP (split, > 64 KiB), ignoring other lines and garbage', async () => {
    const { base, tcpPort } = await start();
    const drainUrl = `${base}/drain?token=${TOKEN}`;
    const truth = makeRequests(3000, START, 60_000, 'drain');
    // A request with a path far over 64 KiB (a long query string gorouter logs in full).
    truth[7].path = `/api/items/long?q=${'x'.repeat(70_000)}`;
    const messages = truth.map(messageOf);
    assert.ok(messages[7].length > 65_536);

    // Bad token: 401, nothing stored.
    const refused = await fetch(`${base}/drain?token=wrong`, { method: 'POST', body: messages[0].toString() });
    assert.equal(refused.status, 401);
    assert.equal((await fetch(`${base}/drain`, { method: 'POST', body: messages[0].toString() })).status, 401);

    // https://: one POST per message; the first 200 requests, then 50 of them again (agent retries).
    for (const m of messages.slice(0, 200)) assert.equal(await postUntilAccepted(drainUrl, m, { maxRetries: 0 }), 204);
    for (const m of messages.slice(100, 150)) await postUntilAccepted(drainUrl, m);
    // https-batch://: the next 1800 (with the long one among them) back to back with APP lines and gauges, in 512 KiB bodies.
    const batched = [...messages.slice(200, 2000), messages[7], ...otherMessages(40)];
    const bodies = batchBodies(batched);
    assert.ok(bodies.length >= 2, 'several bodies');
    for (const body of bodies) assert.equal(await postUntilAccepted(drainUrl, body, { maxRetries: 0 }), 204);

    // syslog://: the rest, octet counted, written in pieces that cut through lengths and messages,
    // with a garbage frame in the middle; a second connection re-sends 100 (agent reconnect + retry).
    const stream = Buffer.concat([
      ...messages.slice(2000, 2500).map(octetCounted),
      Buffer.from('GARBAGE that is not a frame\n'),
      ...messages.slice(2500).map(octetCounted),
      ...otherMessages(10).map(octetCounted),
    ]);
    const tcp = await connectTcp(tcpPort);
    for (let at = 0, i = 0; at < stream.length; i++) {
      const piece = [1, 7, 333, 4096, 65_537][i % 5];
      await tcp.write(stream.subarray(at, at + piece));
      at += piece;
    }
    await tcp.end();
    const again = await connectTcp(tcpPort);
    await again.write(Buffer.concat(messages.slice(2900).map(octetCounted)));
    await again.end();

    await waitFor(
      async () => (await health(base)).buffered === 0 && (await health(base)).stored >= 3000 + 50 + 1 + 100,
      { what: 'drain flushed' },
    );
    assert.deepEqual(await rows(), expected(truth), 'every request exactly once, with exact values');

    const h = await health(base);
    assert.equal(h.accepted, 3000 + 50 + 1 + 100, 'accepted counts deliveries, retries included');
    assert.equal(h.inserted, 3000, 'rows new in PostgreSQL');
    assert.deepEqual(h.dropped, { not_rtr: 50 });
    assert.deepEqual(h.rejected, { bad_frame: 1 });
    assert.equal(h.unauthorized, 2);
    assert.equal(h.refused, 0);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /^paasmon_drain_messages_total\{outcome="stored",reason=""\} 3151$/m);
    assert.match(metrics, /^paasmon_drain_messages_total\{outcome="dropped",reason="not_rtr"\} 50$/m);
    assert.match(metrics, /^paasmon_drain_messages_total\{outcome="rejected",reason="bad_frame"\} 1$/m);
    const counted = [...metrics.matchAll(/^paasmon_router_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
      (a, m) => a + Number(m[1]),
      0,
    );
    assert.equal(counted, 3000, 'router metrics count each request once, retries aside');
    assert.ok(!collector?.output.stderr.includes(TOKEN), 'the token never shows in the logs');
  });

  /**
   * Stops PostgreSQL, sends the requests not yet stored as the agent does (retrying each body until
   * it is taken), checks the drain answers 503 and reports failing with a bounded buffer while the
   * buffer is full, starts PostgreSQL again and waits until every request is stored exactly once.
   * @param {string} base @param {import('../support/router-docs.js').TruthRequest[]} truth
   * @param {number} alreadyStored the first requests of `truth`, stored before the outage
   */
  async function throughOutage(base, truth, alreadyStored) {
    const drainUrl = `${base}/drain?token=${TOKEN}`;
    const bodies = batchBodies(truth.slice(alreadyStored).map(messageOf), 16 * 1024);
    await db.stopServer();
    let restarted = false;
    // A failure below must not leave the agent sending (into the next test's collector, maybe).
    const stopSending = new AbortController();
    /** @type {Promise<void> | undefined} */
    let sending;
    try {
      /** @type {number[]} */
      const statuses = [];
      // The agent keeps retrying each body until it is taken; the database comes back meanwhile.
      const options = { onStatus: (/** @type {number} */ s) => statuses.push(s), signal: stopSending.signal };
      sending = (async () => {
        for (const body of bodies) await postUntilAccepted(drainUrl, body, options);
      })();
      await waitFor(() => statuses.includes(503), {
        what: `a 503 while the buffer is full (statuses: ${statuses.join(' ')})\n${collector?.output.stderr}`,
      });
      const during = await waitFor(
        async () => {
          const h = await health(base);
          return h.status === 'failing' && h;
        },
        { what: `drain failing\n${collector?.output.stderr}` },
      );
      assert.ok(during.buffered >= 200 && during.buffered < 200 + 100, `bounded: ${during.buffered} buffered`);
      assert.ok(during.refused > 0);
      await db.startServer();
      restarted = true;
      await sending;
      await waitFor(async () => (await health(base)).buffered === 0 && (await health(base)).inserted === truth.length, {
        what: `everything stored\n${collector?.output.stderr}`,
        timeoutMs: 60_000,
      });
    } finally {
      stopSending.abort();
      await sending?.catch(() => {});
      // The next tests need the server, whatever happened here.
      if (!restarted) await db.startServer();
    }
    assert.deepEqual(await rows(), expected(truth));
    assert.equal((await health(base)).status, 'ok');
  }

  it('answers 503 while PostgreSQL is down and the buffer is full, then stores everything once it is back', async () => {
    const { base } = await start({ DRAIN_BUFFER_RECORDS: '200' });
    const truth = makeRequests(1000, START, 10_000, 'outage');
    // A first body stored: the outage comes after the schema is in place and writes work.
    await postUntilAccepted(`${base}/drain?token=${TOKEN}`, Buffer.concat(truth.slice(0, 50).map(messageOf)));
    await waitFor(async () => (await health(base)).inserted === 50, { what: 'the first body stored' });
    await throughOutage(base, truth, 50);
  });

  it('lives through PostgreSQL going away while it migrates the schema, and stores everything once it is back', async () => {
    // Held here, the migrations' lock keeps the collector migrating when the server stops.
    const lockHolder = new pg.Client({ connectionString: db.url });
    lockHolder.on('error', () => {});
    await lockHolder.connect();
    try {
      await lockHolder.query('SELECT pg_advisory_lock($1)', [PG_MIGRATE_LOCK_ID]);
      const { base } = await start({ DRAIN_BUFFER_RECORDS: '200' });
      await waitFor(
        async () =>
          (await db.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
            .rows[0].n === 1,
        { what: 'the collector waiting for the migrations lock' },
      );
      await throughOutage(base, makeRequests(1000, START, 10_000, 'migrating'), 0);
      assert.match(collector?.output.stderr ?? '', /postgres: migration failed; retrying/);
      assert.equal(collector?.child.exitCode, null, 'still running');
    } finally {
      await lockHolder.end().catch(() => {});
    }
  });

  it('receives syslog-tls:// with the given certificate', async () => {
    const { key, cert } = selfSignedCertificate(tmp, 'drain');
    // The certificate as PEM text (as a user-provided service holds it), the key as a file.
    const { base, tcpPort } = await start({ DRAIN_TLS_CERT: fs.readFileSync(cert, 'utf8'), DRAIN_TLS_KEY: key });
    const truth = makeRequests(300, START, 5_000, 'tls');
    const connection = await connectTcp(tcpPort, { tls: { ca: fs.readFileSync(cert, 'utf8') } });
    await connection.write(Buffer.concat(truth.map((r) => octetCounted(messageOf(r)))));
    await connection.end();
    await waitFor(async () => (await health(base)).inserted === 300, {
      what: `TLS messages stored\n${collector?.output.stderr}`,
    });
    assert.deepEqual(await rows(), expected(truth));
    assert.equal((await health(base)).tls, true);
  });

  it('refuses a TLS certificate without its key, naming the variable (exit 2)', async () => {
    collector = startCli(['collect'], collectEnv(db, sim, { DRAIN_TCP_PORT: '0', DRAIN_TLS_CERT: '/nonexistent.crt' }));
    const { code } = await collector.exited;
    assert.equal(code, 2);
    assert.match(
      collector.output.stderr,
      /^paasmon: invalid configuration: DRAIN_TLS_KEY is required with DRAIN_TLS_CERT$/m,
    );
  });
});
