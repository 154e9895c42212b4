// Syslog drain throughput: the same RTR lines (a) ingested from a file by `paasmon ingest --file`
// (the baseline) and (b) sent to a running `paasmon collect` as the syslog agent sends them (RFC 5424,
// https-batch bodies of 512 KiB over 5 connections like the agent's MaxConnsPerHost, and once more
// over syslog:// octet counting), into a real PostgreSQL. Goal: drain >= 50 % of the file rate.
// Run: npm run bench -- drain   (BENCH_LINES to change the count)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeApps, startCfSimulator } from '../sandbox/cf-simulator.js';
import { runCli, waitFor } from '../test/support/cli.js';
import { collectEnv, startCollect } from '../test/support/collect.js';
import { startTestDatabase } from '../test/support/database.js';
import { gorouterLine, makeRequests } from '../test/support/router-docs.js';
import {
  batchBodies,
  connectTcp,
  logMessage,
  octetCounted,
  postUntilAccepted,
  rtrEnvelope,
} from '../test/support/syslog-agent-standin.js';
import { NPM_START_FLAGS } from './support/npm-start-flags.js';
import { peakRssMb } from './support/peak-rss.js';

const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const TOKEN = 'bench-drain-token-0123456789';
const CONNECTIONS = 5;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-bench-drain-'));
const [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
/** @type {ReturnType<typeof import('../test/support/cli.js').startCli> | undefined} */
let collector;
try {
  const truth = makeRequests(LINES, Date.parse('2026-11-21T00:00:00Z'), 3_600_000, 'bench-drain');
  const file = path.join(dir, 'access.log');
  fs.writeFileSync(file, truth.map((r) => `${gorouterLine(r)}\n`).join(''));
  const messages = truth.map((r) => logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app })));
  const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  const count = async () => (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
  await runCli(['migrate'], env);

  // Baseline: the file source, as a process.
  let started = performance.now();
  // One app name for all lines (ingest --file takes it from --app, or from a Cloud Controller that
  // knows these apps): the baseline is a rate, and the name costs the same whichever it is.
  const ingest = await runCli(['ingest', '--file', file, '--app', 'shop'], env, { timeoutMs: 600_000 });
  if (ingest.code !== 0) throw new Error(ingest.stderr);
  const fileRate = LINES / ((performance.now() - started) / 1000);
  console.log(
    `file ingest:        ${await count()} rows, ${Math.round(fileRate)} lines/s (paasmon ingest --file, whole process)`,
  );
  await db.query('TRUNCATE router_requests');

  const running = await startCollect(collectEnv(db, sim, { DRAIN_TOKEN: TOKEN, DRAIN_TCP_PORT: '0' }), {
    nodeFlags: NPM_START_FLAGS,
  });
  collector = running.cli;
  const c = collector;
  const { base } = running;
  const inserted = async () =>
    /** @type {any} */ (await (await fetch(`${base}/healthz`)).json()).sources['syslog-drain'].inserted;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, peakRssMb(/** @type {number} */ (c.child.pid)));
  }, 200);

  // HTTPS, batched as the agent batches, five bodies in flight; 503s (buffer full) are retried.
  const bodies = batchBodies(messages);
  let refused = 0;
  started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length)
        await postUntilAccepted(`${base}/drain?token=${TOKEN}`, bodies[next++], {
          onStatus: (s) => {
            if (s === 503) refused += 1;
          },
        });
    }),
  );
  await waitFor(async () => (await inserted()) >= LINES, {
    what: 'https drain stored',
    timeoutMs: 600_000,
    intervalMs: 20,
  });
  const httpsRate = LINES / ((performance.now() - started) / 1000);
  console.log(
    `drain https-batch:  ${await count()} rows, ${Math.round(httpsRate)} messages/s ` +
      `(${bodies.length} bodies, ${refused} answered 503 and resent)`,
  );
  await db.query('TRUNCATE router_requests');

  // syslog:// octet counting, one connection per 1/5 of the lines (the agent has one per drain and app).
  started = performance.now();
  const per = Math.ceil(LINES / CONNECTIONS);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, k) => {
      const connection = await connectTcp(Number(running.drainTcpPort));
      const slice = messages.slice(k * per, (k + 1) * per);
      for (let i = 0; i < slice.length; i += 2000)
        await connection.write(Buffer.concat(slice.slice(i, i + 2000).map(octetCounted)));
      await connection.end();
    }),
  );
  await waitFor(async () => (await inserted()) >= 2 * LINES, {
    what: 'tcp drain stored',
    timeoutMs: 600_000,
    intervalMs: 20,
  });
  const tcpRate = LINES / ((performance.now() - started) / 1000);
  clearInterval(sampler);
  console.log(`drain syslog (tcp): ${await count()} rows, ${Math.round(tcpRate)} messages/s`);
  console.log(
    `drain / file: https-batch ${(httpsRate / fileRate).toFixed(2)}, tcp ${(tcpRate / fileRate).toFixed(2)} ` +
      `(goal >= 0.50); collect peak RSS ${peak.toFixed(1)} MB`,
  );
} finally {
  if (collector && collector.child.exitCode === null) {
    collector.child.kill('SIGTERM');
    await collector.exited;
  }
  await sim.close();
  await db.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
