// `paasmon collect` for a long while as on a foundation: steady drain traffic, 1 s polls of the Cloud
// Controller stand-in, a router-log file that grows, runs started and ended every few seconds, and
// PostgreSQL restarted every few minutes. Prints, per minute, the collector's memory, heap, open file
// descriptors, /metrics size and series, and rows expected against stored; at the end what was lost or
// stored twice, and the last minute against the first after warm-up.
// Run: npm run bench -- soak   (BENCH_SOAK_MINUTES 10, BENCH_SOAK_RESTART_MINUTES 3, BENCH_SOAK_RATE 200)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeApps, startCfSimulator } from '../sandbox/cf-simulator.js';
import { collectEnv, startCollect } from '../test/support/collect.js';
import { startTestDatabase } from '../test/support/database.js';
import { gorouterLine, makeRequests } from '../test/support/router-docs.js';
import { logMessage, postUntilAccepted, rtrEnvelope } from '../test/support/syslog-agent-standin.js';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const RESTART_MS = Number(process.env.BENCH_SOAK_RESTART_MINUTES ?? 3) * 60_000;
/** Router requests a second through the drain, and as many again through the file. */
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 200);
const RUN_EVERY_S = 5;
const WARM_UP_MINUTES = 2;
const TOKEN = 'soak-drain-token-0123456789abcdef';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-soak-'));
const logFile = path.join(tmp, 'gorouter.log');
fs.writeFileSync(logFile, '');
const db = await startTestDatabase();
const sim = await startCfSimulator({ apps: makeApps(3, 2) });
const collect = await startCollect(
  collectEnv(db, sim, {
    DRAIN_TOKEN: TOKEN,
    POLL_SCHEDULE: '* * * * * *',
    ROUTER_LOG_FILE: logFile,
    INGEST_SCHEDULE: '*/5 * * * * *',
  }),
  { nodeFlags: ['--max-semi-space-size=1', '--max-old-space-size=128'] },
);
const pid = /** @type {number} */ (collect.cli.child.pid);
const sent = { drain: 0, file: 0, runs: 0, runsSkipped: 0, restarts: 0 };
let databaseUp = true;

/** The collector's figures now. */
async function figures() {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  const fds = fs.readdirSync(`/proc/${pid}/fd`).length;
  const metrics = await (await fetch(`${collect.base}/metrics`)).text();
  const heap = Number(/^paasmon_process_nodejs_heap_size_used_bytes (\S+)/m.exec(metrics)?.[1]) / 2 ** 20;
  const series = metrics.split('\n').filter((line) => line && !line.startsWith('#')).length;
  let stored = NaN;
  if (databaseUp) {
    stored = await db
      .query('SELECT count(*)::int AS n FROM router_requests')
      .then(({ rows }) => rows[0].n)
      .catch(() => NaN);
  }
  return { rss, heap, fds, metricsBytes: metrics.length, series, stored };
}

/** One second's traffic: RATE router requests through the drain, RATE lines appended to the file. */
async function second(/** @type {number} */ n) {
  const now = Date.now();
  const drained = makeRequests(RATE, now - 1000, 1000, `drain-${n}`);
  const body = Buffer.concat(
    drained.map((r) => logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app }))),
  );
  const posted = postUntilAccepted(`${collect.base}/drain?token=${TOKEN}`, body).then(() => {
    sent.drain += RATE;
  });
  const filed = makeRequests(RATE, now - 1000, 1000, `file-${n}`);
  fs.appendFileSync(logFile, `${filed.map(gorouterLine).join('\n')}\n`);
  sent.file += RATE;
  return { posted, filed };
}

/** A run as a worker leaves it: its requests (the file's, by correlation id), then ended. */
async function oneRun(/** @type {import('../test/support/router-docs.js').TruthRequest[]} */ requests) {
  if (!databaseUp) return void (sent.runsSkipped += 1);
  try {
    const { rows } = await db.query(
      "INSERT INTO test_runs (label, app_name, meta) VALUES ($1, 'app-0', '{}') RETURNING id",
      [`soak ${sent.runs + 1}`],
    );
    const run = rows[0].id;
    await db.query(
      `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, worker)
       SELECT $1, id::uuid, to_timestamp(us / 1e6), 5, 200, 'soak' FROM unnest($2::text[], $3::float8[]) AS r(id, us)`,
      [run, requests.map((r) => r.id), requests.map((r) => r.receivedUs)],
    );
    await db.query('UPDATE test_runs SET ended_at = now() WHERE id = $1', [run]);
    sent.runs += 1;
  } catch {
    sent.runsSkipped += 1;
  }
}

const fmt = (/** @type {number} */ x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
console.log(
  `soak: ${MINUTES} min; ${RATE} router requests/s by drain and by file; a run every ${RUN_EVERY_S} s; ` +
    `PostgreSQL restarted every ${RESTART_MS / 60_000} min; collect at --max-old-space-size=128`,
);
console.log('min  RSS MB  heap MB  fds  /metrics KB  series  expected   stored  runs  restarts');
/** @type {Array<Awaited<ReturnType<typeof figures>>>} */
const perMinute = [];
/** @type {Promise<void>[]} */
const posts = [];
const started = Date.now();
let nextRestart = started + RESTART_MS;
try {
  for (let s = 1; s <= MINUTES * 60; s++) {
    const { posted, filed } = await second(s);
    posts.push(posted);
    if (s % RUN_EVERY_S === 0) await oneRun(filed.slice(0, 50));
    if (Date.now() >= nextRestart) {
      nextRestart += RESTART_MS;
      databaseUp = false;
      await db.stopServer();
      await sleep(5000);
      await db.startServer();
      databaseUp = true;
      sent.restarts += 1;
    }
    if (s % 60 === 0) {
      const f = await figures();
      perMinute.push(f);
      const cells = [
        [s / 60, 3],
        [fmt(f.rss), 6],
        [fmt(f.heap), 7],
        [f.fds, 3],
        [fmt(f.metricsBytes / 1024), 11],
        [f.series, 6],
        [sent.drain + sent.file, 8],
        [f.stored, 7],
        [sent.runs, 4],
        [sent.restarts, 8],
      ];
      console.log(cells.map(([value, width]) => String(value).padStart(Number(width))).join('  '));
    }
    await sleep(Math.max(0, started + s * 1000 - Date.now()));
  }
  await Promise.all(posts);
  // The file's last lines wait for the next ingest; the drain's last page for its write.
  const expected = sent.drain + sent.file;
  let stored = { n: 0, distinct: 0 };
  for (let waited = 0; waited < 60 && stored.n < expected; waited++) {
    await sleep(1000);
    stored = (
      await db.query('SELECT count(*)::int AS n, count(DISTINCT vcap_request_id)::int AS distinct FROM router_requests')
    ).rows[0];
  }
  console.log(
    `rows: expected ${expected} (drain ${sent.drain}, file ${sent.file}), stored ${stored.n}, ` +
      `lost ${expected - stored.n}, stored twice ${stored.n - stored.distinct}; runs ${sent.runs} ` +
      `(${sent.runsSkipped} not started while PostgreSQL was down), restarts ${sent.restarts}`,
  );
  const first = perMinute[Math.min(WARM_UP_MINUTES, perMinute.length) - 1];
  const last = perMinute.at(-1);
  if (first && last) {
    const ratio = (/** @type {number} */ a, /** @type {number} */ b) => fmt(b / a, 2);
    console.log(
      `last minute / minute ${perMinute.indexOf(first) + 1}: RSS ${ratio(first.rss, last.rss)}, ` +
        `heap ${ratio(first.heap, last.heap)}, fds ${ratio(first.fds, last.fds)}, ` +
        `series ${ratio(first.series, last.series)}`,
    );
  }
} finally {
  collect.cli.child.kill('SIGTERM');
  await collect.cli.exited;
  await sim.close();
  await db.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
