// paasmon's load generator (recording every request into PostgreSQL) against autocannon, on the
// same target process at the same connection count, in alternating rounds; medians printed side by
// side with the ratios of issue 13, and undici alone (the HTTP client under paasmon, nothing else)
// as the floor. All clients run as processes and report their own CPU time the same way
// (support/cpu-at-exit.js), less what a run without load costs each (start and exit); PostgreSQL's
// CPU is its whole process tree's. Then the open model at 80 % of the closed-model rate (once
// starting at full rate, once after a --ramp), a constant-latency target (no stalls), and a
// 1,000,000-request run (peak RSS).
// Run: npm run bench -- loadgen   (BENCH_CONNECTIONS=32,8 BENCH_SECONDS=10 BENCH_ROUNDS=3
//      BENCH_LONG_REQUESTS=1000000 BENCH_DELAY_MS=5 BENCH_RAMP=1s)
import os from 'node:os';
import { startCli } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { exitWithPeakRss, peakRssMb } from './support/peak-rss.js';
import { postgresPid, settledTreeCpuSeconds } from './support/process-cpu.js';
import { CPU_AT_EXIT, autocannon, cpuOf, numberIn, startTarget, undiciAlone } from './support/loadgen-clients.js';

const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '32,8').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LONG = Number(process.env.BENCH_LONG_REQUESTS ?? 1_000_000);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 5);
const RAMP = process.env.BENCH_RAMP ?? '1s';
/** The no-stalls run's steady part starts this long after its first request. */
const STEADY_AFTER_MS = 2000;
/** The no-stalls run lasts at least this long: long enough to see a stall that comes every few seconds. */
const STALLS_SECONDS = Math.max(SECONDS, 12);

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
/** The machine's 1-minute load average (2 cores here: above 2 the clients wait for a CPU). */
const load = () => `load ${os.loadavg()[0].toFixed(2)}`;

const db = await startTestDatabase();
const pgPid = postgresPid(db.port);
/** @param {string[]} args */
async function paasmon(args) {
  const pgBefore = await settledTreeCpuSeconds(pgPid);
  const run = startCli(['loadgen', ...args], { DATABASE_URL: db.url, NODE_OPTIONS: CPU_AT_EXIT });
  const rss = await exitWithPeakRss(run);
  const out = run.output.stdout;
  const recorded = numberIn(out, /(\d+) requests recorded/);
  return {
    out,
    rss,
    run: numberIn(out, /run (\d+), worker/),
    rps: numberIn(out, /Requests\/sec: (\S+)/),
    recorded,
    cpu: cpuOf(run.output.stderr),
    pgCpu: (await settledTreeCpuSeconds(pgPid)) - pgBefore,
  };
}

const target = await startTarget(0);
const slowTarget = await startTarget(DELAY_MS);
const us = (/** @type {number} */ seconds, /** @type {number} */ n) => ((seconds / n) * 1e6).toFixed(1).padStart(6);
try {
  console.log(
    `target ${target.url} (own process); ${SECONDS} s per client per round, ${ROUNDS} rounds, medians; ` +
      `${os.cpus().length} CPUs, ${load()}`,
  );
  console.log('paasmon records every request in PostgreSQL; autocannon sends the same four id headers (fixed).');
  // CPU per request leaves out each client's start and exit: the CPU of a one-request run.
  const acStartup = (await autocannon(target.url, 1, { requests: 1 })).cpu;
  const pmStartup = (await paasmon(['--url', target.url, '--requests', '1'])).cpu;
  const unStartup = (await undiciAlone(target.url, 1, 0)).cpu; // 0 s: one request
  console.log(
    `startup + exit CPU (one request): autocannon ${acStartup.toFixed(2)} s, paasmon ${pmStartup.toFixed(2)} s, ` +
      `undici alone ${unStartup.toFixed(2)} s`,
  );
  /** @type {Map<number, number>} */
  const closedRps = new Map();
  for (const connections of CONNECTIONS) {
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The order turns each round: no client always runs right after PostgreSQL's writes.
      /** @type {Array<() => Promise<any>>} */
      const clients = [
        () => autocannon(target.url, connections, { seconds: SECONDS }),
        () => paasmon(['--url', target.url, '--duration', `${SECONDS}s`, '--parallel', String(connections)]),
        () => undiciAlone(target.url, connections, SECONDS),
      ];
      const results = [];
      for (let k = 0; k < clients.length; k++) {
        const i = (k + round) % clients.length;
        results[i] = await clients[i]();
      }
      const [ac, pm, un] = results;
      ac.cpu -= acStartup;
      pm.cpu -= pmStartup;
      un.cpu -= unStartup;
      rounds.push({ ac, pm, un });
      console.log(
        `  c=${connections} round ${round + 1}: autocannon ${Math.round(ac.rps)} req/s ` +
          `${us(ac.cpu, ac.requests)} us CPU/req | undici alone ${Math.round(un.rps)} req/s ` +
          `${us(un.cpu, un.requests)} us CPU/req` +
          ` | paasmon ${Math.round(pm.rps)} req/s ${us(pm.cpu, pm.recorded)} us CPU/req, ` +
          `PostgreSQL ${us(pm.pgCpu, pm.recorded)} us CPU/row, ${pm.recorded} recorded; ${load()}`,
      );
    }
    const ratio = median(rounds.map((r) => r.pm.rps / r.ac.rps));
    const cpuRatio = median(rounds.map((r) => r.pm.cpu / r.pm.recorded / (r.ac.cpu / r.ac.requests)));
    closedRps.set(connections, median(rounds.map((r) => r.pm.rps)));
    console.log(
      `closed model, ${connections} connections: ` +
        `autocannon ${Math.round(median(rounds.map((r) => r.ac.rps)))} req/s, ` +
        `paasmon ${Math.round(median(rounds.map((r) => r.pm.rps)))} req/s (every request recorded)`,
    );
    console.log(`  paasmon / autocannon req/s = ${ratio.toFixed(2)}   (goal >= 0.80)`);
    console.log(`  paasmon / autocannon CPU per request = ${cpuRatio.toFixed(2)}   (goal <= 1.30)`);
    // What the HTTP client alone costs and reaches: how much of the gap is paasmon's own work.
    const floorRatio = median(rounds.map((r) => r.un.cpu / r.un.requests / (r.ac.cpu / r.ac.requests)));
    console.log(
      `  undici alone (same headers, no ids, no statistics, nothing recorded) / autocannon: ` +
        `req/s ${median(rounds.map((r) => r.un.rps / r.ac.rps)).toFixed(2)}, CPU per request ${floorRatio.toFixed(2)}`,
    );
    console.log(
      `  PostgreSQL CPU per recorded row: ${us(median(rounds.map((r) => r.pm.pgCpu / r.pm.recorded)), 1)} us`,
    );
  }

  // Open model at 80 % of the closed-model maximum, with at most as many connections.
  // Once as the schedule starts at full rate (a cold generator and target fall behind in the first
  // few hundred ms), once after a --ramp (the rate kept is then the full-rate part's).
  const rate = Math.round(0.8 * /** @type {number} */ (closedRps.get(CONNECTIONS[0])));
  for (const ramp of [undefined, RAMP]) {
    const open = await paasmon([
      ...['--url', target.url, '--duration', `${SECONDS}s`, '--rate', String(rate)],
      ...['--connections', String(CONNECTIONS[0]), ...(ramp ? ['--ramp', ramp] : [])],
    ]);
    const sentRate = numberIn(open.out, /sent (\S+) req\/s/);
    // The send-time line, not the latency line above it (which also has a p99 and a max).
    const sendTime = (/** @type {string} */ p) => numberIn(open.out, new RegExp(`due \\(ms\\):.*${p}\\s+(\\S+)`));
    const ownTime = (/** @type {string} */ p) => numberIn(open.out, new RegExp(`generator's own:.*${p}\\s+(\\S+)`));
    console.log(
      `open model --rate ${rate} (80 % of the closed maximum)${ramp ? ` --ramp ${ramp}` : ''}: ` +
        `sent ${sentRate} req/s${ramp ? ' at full rate' : ''} = ` +
        `${((100 * sentRate) / rate).toFixed(2)} % of the asked rate (goal within 1 %); send time after due: ` +
        `p50 ${sendTime('p50')}, p99 ${sendTime('p99')} ms (goal <= 2 ms), max ${sendTime('max')} ms; ` +
        `late sends ${numberIn(open.out, /Late sends:\s+(\d+)/)}; ${load()}`,
    );
    console.log(
      `  of it the generator's own (due until it took the request): p50 ${ownTime('p50')}, p99 ${ownTime('p99')}, ` +
        `max ${ownTime('max')} ms; the rest waited for one of the ${CONNECTIONS[0]} connections`,
    );
  }

  // No stalls: against a target answering after a constant delay, batch writes must not show.
  const steadyRate = Math.round(Math.min(0.5 * rate, 4000));
  const steady = await paasmon([
    ...['--url', slowTarget.url, '--duration', `${STALLS_SECONDS}s`, '--rate', String(steadyRate)],
    ...['--connections', '64'],
  ]);
  // The whole run, and its steady part: without the first STEADY_AFTER_MS, when the code of
  // generator and target is not yet compiled and V8 collects what start-up left (where the
  // slowest requests of the whole run were, `--trace-gc`), which no batch write causes.
  /** @param {number} afterMs */
  const stalls = async (afterMs) => {
    const spread = await (await fetch(`${slowTarget.url}spread?afterMs=${afterMs}`)).json();
    const e2e = (
      await db.query(
        `SELECT count(*)::int AS n,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                percentile_cont(0.999) WITHIN GROUP (ORDER BY duration_ms) AS p999
         FROM loadgen_requests
         WHERE run_id = $1
           AND started_at >= (SELECT min(started_at) FROM loadgen_requests WHERE run_id = $1)
                             + make_interval(secs => $2::float8 / 1000)`,
        [steady.run, afterMs],
      )
    ).rows[0];
    if (!e2e.n || spread.p50 === undefined) return 'no requests';
    return (
      `${e2e.n} requests: e2e p50 ${e2e.p50.toFixed(2)} ms, p99.9 ${e2e.p999.toFixed(2)} ms; ` +
      `the target's own p50 ${spread.p50.toFixed(2)}, p99.9 ${spread.p999.toFixed(2)} ms; ` +
      `p99.9 - p50 - target spread = ${(e2e.p999 - e2e.p50 - (spread.p999 - spread.p50)).toFixed(2)} ms`
    );
  };
  console.log(
    `no stalls: --rate ${steadyRate} --duration ${STALLS_SECONDS}s against a ${DELAY_MS} ms target: ` +
      `${await stalls(0)} (goal <= 1 ms); ${load()}`,
  );
  console.log(`  after the first ${STEADY_AFTER_MS} ms: ${await stalls(STEADY_AFTER_MS)}`);

  // A long run: every request recorded, memory flat.
  const rssSamples = [];
  const longRun = startCli(['loadgen', '--url', target.url, '--requests', String(LONG), '--parallel', '32'], {
    DATABASE_URL: db.url,
  });
  const sampler = setInterval(() => {
    try {
      rssSamples.push(peakRssMb(/** @type {number} */ (longRun.child.pid)));
    } catch {
      /* exited */
    }
  }, 1000);
  const longPeak = await exitWithPeakRss(longRun);
  clearInterval(sampler);
  const longId = numberIn(longRun.output.stdout, /run (\d+), worker/);
  const stored = (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [longId])).rows[0]
    .n;
  const quarter = (/** @type {number} */ q) => rssSamples[Math.floor((q * (rssSamples.length - 1)) / 4)]?.toFixed(0);
  console.log(
    `long run: ${LONG} requests, ${stored} recorded, ` +
      `${numberIn(longRun.output.stdout, /Requests\/sec: (\S+)/)} req/s, ` +
      `peak RSS ${longPeak.toFixed(1)} MB (goal < 150); peak so far at 25/50/75/100 %: ` +
      `${[1, 2, 3, 4].map(quarter).join(' / ')} MB; ${load()}`,
  );
} finally {
  target.child.kill();
  slowTarget.child.kill();
  await db.stop();
}
