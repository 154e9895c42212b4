// Syslog drain throughput: the same RTR lines (a) ingested from a file by `paasmon ingest --file`
// (the baseline) and (b) sent to a running `paasmon collect` as the syslog agent sends them (RFC 5424):
// https-batch bodies of 512 KiB over 5 connections like the agent's MaxConnsPerHost, then over
// syslog:// and syslog-tls:// octet counting, into a real PostgreSQL. Each syslog way is the second phase
// of its `collect`, after an https-batch phase. Every body and frame is built
// before the clock starts (the agent runs on other machines; the bench's senders only write bytes).
// Besides the rates it prints the CPU time per line of the file ingest (with and without its fixed
// cost, measured by an ingest of one line) and per message of `collect`, of PostgreSQL, and of
// the bench's sender. Goal (issue 30): each drain rate >= 0.9 x the file rate.
// Run: npm run bench -- drain   (BENCH_LINES to change the count; BENCH_BEFORE_CLI=<another
// checkout's collector/cli.js> measures that build first, then this one, in the same run;
// BENCH_CPU_PROF=<dir> writes a CPU profile of each `collect` there; BENCH_NODE_FLAGS="<flags>" adds
// node flags to this build's `collect`, after the manifest's; BENCH_MESSAGES_PER_WRITE=1: one syslog frame per write)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeApps, startCfSimulator } from '../sandbox/cf-simulator.js';
import { selfSignedCertificate } from '../test/support/certificate.js';
import { runCli } from '../test/support/cli.js';
import { collectEnv, startCollect } from '../test/support/collect.js';
import { startTestDatabase } from '../test/support/database.js';
import { gorouterLine, makeRequests } from '../test/support/router-docs.js';
import { logMessage, rtrEnvelope } from '../test/support/syslog-agent-standin.js';
import { COLLECTOR_NODE_FLAGS } from './support/collector-flags.js';
import { eventLoopTime } from './support/event-loop-probe.js';
import { peakRssMb } from './support/peak-rss.js';
import {
  cpuSecondsOf,
  cpuSecondsOfTree,
  exitedChildrenCpuSeconds,
  mainThreadCpuSecondsOf,
  httpsBatchRequests,
  octetCountedWrites,
  sendHttpsBatch,
  sendOctetCounted,
} from './support/drain-senders.js';

const LINES = Number(process.env.BENCH_LINES ?? 200_000);
const TOKEN = 'bench-drain-token-0123456789';
const GOAL = 0.9;
const CPU_PROF = process.env.BENCH_CPU_PROF;
const EXTRA_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
/** @type {Array<[label: string, cli: string | undefined]>} */
const BUILDS = [['paasmon', undefined]];
if (process.env.BENCH_BEFORE_CLI) BUILDS.unshift(['before', process.env.BENCH_BEFORE_CLI]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-bench-drain-'));
/** @type {Array<() => Promise<void>>} what to stop, newest first */
const stops = [];
let cleaning;
const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => console.error(`cleanup: ${err.message}`));
    fs.rmSync(dir, { recursive: true, force: true });
  })());
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM']))
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));

const [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
stops.push(
  () => db.stop(),
  () => sim.close(),
);
const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
const count = async () => (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
/** PostgreSQL's CPU seconds so far (the postmaster and its backends). */
const postgresCpu = () => cpuSecondsOfTree(/** @type {number} */ (db.pid));
/** This process's CPU seconds (the senders). */
const benchCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
/** µs per line or message. @param {number} seconds */
const perLine = (seconds) => (seconds * 1e6) / LINES;

/**
 * `paasmon ingest --file` of `file` with build `cli`: lines/s, CPU µs per line of the process and of
 * PostgreSQL, and the process's CPU per line without its fixed cost (start, migrate, views): that of an
 * ingest of one line, `oneLine`.
 * @param {string} file @param {string} oneLine @param {string | undefined} cli
 */
async function fileIngest(file, oneLine, cli) {
  /** CPU seconds of one ingest of `source`: the process's, PostgreSQL's, and its wall time. @param {string} source */
  const ingestOnce = async (source) => {
    await db.query('TRUNCATE router_requests');
    const cpu = exitedChildrenCpuSeconds();
    const pg = postgresCpu();
    const started = performance.now();
    // One app name for all lines: the baseline is a rate, and the name costs the same whichever it is.
    const ingest = await runCli(['ingest', '--file', source, '--app', 'shop'], env, { timeoutMs: 600_000, cli });
    if (ingest.code !== 0) throw new Error(ingest.stderr);
    const seconds = (performance.now() - started) / 1000;
    // Its backends end after it: read PostgreSQL's time once they are gone (and counted by the postmaster).
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { seconds, cpu: exitedChildrenCpuSeconds() - cpu, pg: postgresCpu() - pg };
  };
  const fixed = await ingestOnce(oneLine);
  const run = await ingestOnce(file);
  const rate = LINES / run.seconds;
  const result = {
    rate,
    cpuUs: perLine(run.cpu),
    steadyCpuUs: perLine(run.cpu - fixed.cpu),
    pgUs: perLine(run.pg),
    steadyRate: LINES / (run.seconds - fixed.seconds),
  };
  console.log(
    `file ingest:          ${await count()} rows, ${Math.round(rate)} lines/s, µs CPU/line: ingest ` +
      `${result.cpuUs.toFixed(1)} (${result.steadyCpuUs.toFixed(1)} without the ${fixed.cpu.toFixed(2)} s ` +
      `and ${fixed.seconds.toFixed(2)} s of one line), PostgreSQL ${result.pgUs.toFixed(1)}`,
  );
  return result;
}

/**
 * Waits until `collect` has stored `target` rows. Each /healthz costs `collect` CPU: asked every
 * 20 ms from the start it took a share of the CPU being measured, so it is asked every 200 ms while
 * more than two pages are missing, then every 10 ms.
 * @param {() => Promise<number>} inserted @param {number} target @param {string} way
 */
async function storedAll(inserted, target, way) {
  const deadline = Date.now() + 600_000;
  for (let now = await inserted(); now < target; now = await inserted()) {
    if (Date.now() > deadline) throw new Error(`${way} not stored in time: ${now} of ${target} rows`);
    await new Promise((resolve) => setTimeout(resolve, target - now > 10_000 ? 200 : 10));
  }
}

/**
 * A running `collect` of build `cli`; `stop` ends it and tells its peak RSS.
 * @param {string | undefined} cli @param {Record<string, string>} drainEnv
 */
async function collect(cli, drainEnv) {
  const loopFile = path.join(dir, `event-loop-${stops.length}`);
  const probe = { DRAIN_TOKEN: TOKEN, DRAIN_TCP_PORT: '0', BENCH_EVENT_LOOP_FILE: loopFile };
  const running = await startCollect(collectEnv(db, sim, { ...probe, ...drainEnv }), {
    nodeFlags: [
      ...COLLECTOR_NODE_FLAGS,
      `--import=${new URL('./support/event-loop-probe.js', import.meta.url).pathname}`,
      ...(cli ? [] : EXTRA_NODE_FLAGS),
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
    ],
    cli,
  });
  const child = running.cli.child;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await running.cli.exited;
  };
  stops.push(stop);
  const inserted = async () =>
    /** @type {any} */ (await (await fetch(`${running.base}/healthz`)).json()).sources['syslog-drain'].inserted;
  /**
   * Sends the messages one way, waits until all are stored: messages/s and collect's CPU µs per message.
   * @param {string} way @param {() => Promise<string>} send
   */
  const measure = async (way, send) => {
    await db.query('TRUNCATE router_requests');
    const target = (await inserted()) + LINES;
    const pid = /** @type {number} */ (child.pid);
    const cpu = { collect: cpuSecondsOf(pid), main: mainThreadCpuSecondsOf(pid), pg: postgresCpu(), bench: benchCpu() };
    const loop = await eventLoopTime(pid, loopFile);
    const started = performance.now();
    const detail = await send();
    const sent = perLine(benchCpu() - cpu.bench);
    await storedAll(inserted, target, way);
    const seconds = (performance.now() - started) / 1000;
    const rate = LINES / seconds;
    const cpuUs = perLine(cpuSecondsOf(pid) - cpu.collect);
    const mainUs = perLine(mainThreadCpuSecondsOf(pid) - cpu.main);
    const pgUs = perLine(postgresCpu() - cpu.pg);
    const loopAfter = await eventLoopTime(pid, loopFile);
    const idle = loopAfter.idle - loop.idle;
    const busy = loopAfter.active - loop.active;
    console.log(
      `drain ${way.padEnd(15)} ${await count()} rows, ${Math.round(rate)} messages/s, µs CPU/message: ` +
        `collect ${cpuUs.toFixed(1)} (main thread ${mainUs.toFixed(1)}), PostgreSQL ${pgUs.toFixed(1)}, ` +
        `sender ${sent.toFixed(1)} (${detail}); collect's event loop idle ${(idle / (idle + busy)).toFixed(2)} ` +
        `of the phase, PostgreSQL busy ${((pgUs * LINES) / 1e6 / seconds).toFixed(2)} cores; ` +
        `collect peak RSS so far ${peakRssMb(pid).toFixed(1)} MB`,
    );
    return { rate, cpuUs, pgUs };
  };
  return {
    ...running,
    measure,
    async stop() {
      const peak = peakRssMb(/** @type {number} */ (child.pid));
      await stop();
      return peak;
    },
  };
}

try {
  const truth = makeRequests(LINES, Date.parse('2026-11-21T00:00:00Z'), 3_600_000, 'bench-drain');
  const file = path.join(dir, 'access.log');
  fs.writeFileSync(file, truth.map((r) => `${gorouterLine(r)}\n`).join(''));
  // An empty file is refused: one line stands for the fixed cost.
  const oneLine = path.join(dir, 'one-line.log');
  fs.writeFileSync(oneLine, `${gorouterLine(truth[0])}\n`);
  const messages = truth.map((r) => logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app })));
  const requests = httpsBatchRequests(`/drain?token=${TOKEN}`, messages);
  const writes = octetCountedWrites(messages);
  const { key, cert } = selfSignedCertificate(dir, 'drain');
  const ca = fs.readFileSync(cert, 'utf8');
  await runCli(['migrate'], env);

  const results = [];
  for (const [label, cli] of BUILDS) {
    console.log(`-- ${label}${cli ? ` (${cli})` : ''}`);
    const baseline = await fileIngest(file, oneLine, cli);
    const plain = await collect(cli, {});
    const https = await plain.measure('https-batch:', () => sendHttpsBatch(Number(new URL(plain.base).port), requests));
    const tcp = await plain.measure('syslog (tcp):', () => sendOctetCounted(Number(plain.drainTcpPort), writes));
    const plainPeak = await plain.stop();
    const secured = await collect(cli, { DRAIN_TLS_CERT: cert, DRAIN_TLS_KEY: key });
    const tlsPort = Number(secured.drainTcpPort);
    // TLS is measured as TCP is, after the same https-batch phase: a fresh collect parses its first messages slower.
    const https2 = await secured.measure('https-batch (2):', () =>
      sendHttpsBatch(Number(new URL(secured.base).port), requests),
    );
    const tls = await secured.measure('syslog-tls:', () => sendOctetCounted(tlsPort, writes, { tls: { ca } }));
    const peak = Math.max(plainPeak, await secured.stop());
    results.push({ label, baseline, https, https2, tcp, tls, peak });
  }
  for (const { label, baseline, https, https2, tcp, tls, peak } of results) {
    const ratio = (/** @type {{ rate: number }} */ way) => (way.rate / baseline.rate).toFixed(2);
    const both = (/** @type {{ cpuUs: number, pgUs: number }} */ way) => (way.cpuUs + way.pgUs).toFixed(1);
    console.log(
      `${label}: drain / file: https-batch ${ratio(https)} (${ratio(https2)} in the TLS collect), tcp ${ratio(tcp)}, ` +
        `tls ${ratio(tls)} (goal >= ${GOAL}); ` +
        `CPU µs per line of paasmon + PostgreSQL: file ${(baseline.cpuUs + baseline.pgUs).toFixed(1)} ` +
        `(steady ${(baseline.steadyCpuUs + baseline.pgUs).toFixed(1)}), https-batch ${both(https)}, ` +
        `tcp ${both(tcp)}, tls ${both(tls)}; collect peak RSS ${peak.toFixed(1)} MB (< 150)`,
    );
  }
} finally {
  await cleanUp();
}
