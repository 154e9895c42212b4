// Clients that misbehave against `collect` behind a public route: idle connections by the thousand, a
// body without end, a large body without the token, a flood of 404s. Each scenario returns the slowest
// /livez answer while it lasted, the collector's memory after it, and what the client saw; the abuse
// test asserts them, `npm run bench -- abuse` prints them.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import autocannon from 'autocannon';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { waitFor } from './cli.js';
import { collectEnv, startCollect } from './collect.js';
import { startTestDatabase } from './database.js';
import { gorouterLine, makeRequests } from './router-docs.js';
import { batchBodies, logMessage, rtrEnvelope } from './syslog-agent-standin.js';

const TOKEN = 'abuse-drain-token-0123456789';
/** The longest a /livez is waited for: past it the scenario fails. */
const LIVEZ_GIVE_UP_MS = 5000;

/**
 * @typedef {object} Scenario
 * @property {number} slowestLivezMs the slowest /livez while the abuse lasted (checked every 100 ms)
 * @property {number} rssBytes the collector's resident memory after it
 * @property {string} outcome what the abusing client saw
 * @property {number} drainedMs how long 2,000 router requests took through the drain meanwhile, to stored
 */

/** `collect` (with the manifest's memory flags and a drain), its database and Cloud Controller stand-in. */
export async function startAbuseTarget() {
  const [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
  const collect = await startCollect(collectEnv(db, sim, { DRAIN_TOKEN: TOKEN }), {
    nodeFlags: ['--max-semi-space-size=1', '--max-old-space-size=128'],
  });
  // Its schema first: the drain's rows are counted in router_requests, which its migration creates.
  await waitFor(async () => (await db.query("SELECT to_regclass('router_requests') AS t")).rows[0].t, {
    what: 'the collector to create its tables',
  });
  const port = Number(new URL(collect.base).port);
  const pid = /** @type {number} */ (collect.cli.child.pid);
  let batch = 0;

  /** /livez's time in ms; throws when it does not answer 200 within LIVEZ_GIVE_UP_MS. */
  const livez = async () => {
    const started = performance.now();
    const res = await fetch(`${collect.base}/livez`, { signal: AbortSignal.timeout(LIVEZ_GIVE_UP_MS) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/livez answered ${res.status}`);
    return performance.now() - started;
  };
  /** The slowest /livez, checked every 100 ms until `done` settles. @param {Promise<unknown>} done */
  const livezThroughout = async (done) => {
    let finished = false;
    done.finally(() => (finished = true)).catch(() => {});
    let slowest = 0;
    while (!finished) {
      slowest = Math.max(slowest, await livez());
      await new Promise((r) => setTimeout(r, 100));
    }
    return slowest;
  };
  /** 2,000 router requests through the drain with the token; resolves with the ms until all are stored. */
  const drainStillStores = async () => {
    const started = performance.now();
    batch += 1;
    const requests = makeRequests(2000, Date.now() - 60_000, 50_000, `abuse-${batch}`);
    const messages = requests.map((r) =>
      logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app })),
    );
    for (const body of batchBodies(messages)) {
      const res = await fetch(`${collect.base}/drain?token=${TOKEN}`, { method: 'POST', body: new Uint8Array(body) });
      if (res.status !== 204) throw new Error(`the drain answered ${res.status}`);
    }
    const ids = requests.map((r) => r.vcapRequestId);
    for (const deadline = Date.now() + 30_000; ;) {
      const { rows } = await db.query(
        'SELECT count(*)::int AS n FROM router_requests WHERE vcap_request_id = ANY($1)',
        [ids],
      );
      if (rows[0].n === ids.length) return performance.now() - started;
      if (Date.now() > deadline) throw new Error(`${rows[0].n} of ${ids.length} drained requests stored in 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

  /**
   * Runs `abuse` while /livez is watched and the drain used; the scenario's figures.
   * @param {() => Promise<string>} abuse @returns {Promise<Scenario>}
   */
  const during = async (abuse) => {
    const running = abuse();
    const [slowestLivezMs, outcome, drainedMs] = await Promise.all([
      livezThroughout(running),
      running,
      drainStillStores(),
    ]);
    return { slowestLivezMs, outcome, drainedMs, rssBytes: rss() };
  };

  return {
    /** 1,000 connections opened, then held idle for 3 s while /livez is watched and the drain used. */
    async idleConnections() {
      const sockets = await Promise.all(
        Array.from(
          { length: 1000 },
          () =>
            /** @type {Promise<net.Socket>} */ (
              new Promise((resolve, reject) => {
                const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
                socket.on('error', reject);
              })
            ),
        ),
      );
      try {
        return await during(async () => {
          await new Promise((r) => setTimeout(r, 3000));
          return `${sockets.filter((socket) => !socket.destroyed).length} of ${sockets.length} connections still open`;
        });
      } finally {
        for (const socket of sockets) socket.destroy();
      }
    },
    /** A drain POST with the token whose body never ends. */
    endlessBody: () => during(() => endlessPost(`${collect.base}/drain?token=${TOKEN}`)),
    /** 100 MB posted to the drain without the token. */
    bigBodyWithoutToken: () => during(() => bigPost(`${collect.base}/drain?token=wrong`, 100 * 1024 * 1024)),
    /** 10,000 requests a second of a path that does not exist, for 5 s, from a thread of its own. */
    flood404: () =>
      during(async () => {
        // autocannon's run is a thenable, not a promise.
        const result = await Promise.resolve(
          autocannon({
            url: `${collect.base}/no-such-path`,
            connections: 50,
            overallRate: 10_000,
            duration: 5,
            workers: 1,
          }),
        );
        return `${result['4xx']} 404s answered, ${result.requests.average} req/s, ${result.errors} errors`;
      }),
    async stop() {
      collect.cli.child.kill('SIGTERM');
      await collect.cli.exited;
      await sim.close();
      await db.stop();
    },
  };
}

/** Writes 64 KiB chunks until the server answers or closes. @param {string} url @returns {Promise<string>} */
function endlessPost(url) {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST' }, (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
    req.on('error', (err) => resolve(`closed (${/** @type {any} */ (err).code})`));
    const write = () => {
      if (req.destroyed) return;
      if (req.write(chunk)) setImmediate(write);
      else req.once('drain', write);
    };
    write();
  });
}

/** Posts `size` bytes (declared) until the server answers. @param {string} url @param {number} size */
function bigPost(url, size) {
  const chunk = Buffer.alloc(1024 * 1024, 'y');
  const started = performance.now();
  return /** @type {Promise<string>} */ (
    new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'Content-Length': String(size) } }, (res) => {
        res.resume();
        resolve(`answered ${res.statusCode} after ${(performance.now() - started).toFixed(0)} ms`);
        req.destroy();
      });
      req.on('error', (err) => (/** @type {any} */ (err).code === 'ECONNRESET' ? resolve('reset') : reject(err)));
      let sent = 0;
      const write = () => {
        while (sent < size && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', write);
        }
        if (!req.destroyed) req.end();
      };
      write();
    })
  );
}
