// The real `paasmon collect` process at scale: 200 apps x 5 instances, 20 ms added to every
// Cloud Controller answer, writing to a real PostgreSQL. Prints poll cycle time (from the
// collector's own debug log), requests per poll (counted by the simulator) and the collector's
// peak RSS (VmHWM of its process). Run: npm run bench -- poll
import { makeApps, startCfSimulator, SPACE_GUID } from '../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { COLLECTOR_NODE_FLAGS } from './support/collector-flags.js';
import { peakRssMb } from './support/peak-rss.js';

const APPS = Number(process.env.BENCH_APPS ?? 200);
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 5);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const POLLS = Number(process.env.BENCH_POLLS ?? 8);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '4,8,16').split(',').map(Number);

/** @param {number[]} values @param {number} p */
const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

const db = await startTestDatabase();
const sim = await startCfSimulator({ apps: makeApps(APPS, INSTANCES) });
sim.faults.latencyMs = LATENCY_MS;
console.log(
  `paasmon collect vs simulator: ${APPS} apps x ${INSTANCES} instances, +${LATENCY_MS} ms per answer, ` +
    `a poll every 2 s, ${POLLS} polls per row`,
);
console.log(`node flags (as manifest.yml): ${COLLECTOR_NODE_FLAGS.join(' ')}`);
console.log('concurrency  samples/poll  requests/poll  poll p50 ms  poll max ms  peak RSS MB');
try {
  for (const concurrency of CONCURRENCIES) {
    const collector = startCli(
      ['collect'],
      {
        DATABASE_URL: db.url,
        CF_API: sim.url,
        CF_USERNAME: 'admin',
        CF_PASSWORD: 'admin-secret',
        CF_SPACE_GUID: SPACE_GUID,
        CF_CONCURRENCY: String(concurrency),
        POLL_SCHEDULE: '*/2 * * * * *',
        PORT: '0',
        LOG_LEVEL: 'debug',
      },
      { nodeFlags: COLLECTOR_NODE_FLAGS },
    );
    const polls = () => [
      ...collector.output.stderr.matchAll(/"records":(\d+),"durationMs":(\d+),"complete":true,"msg":"poll done"/g),
    ];
    await waitFor(() => polls().length >= 1, { timeoutMs: 30_000, what: 'first poll' });
    const requestsBefore = sim.counters.requests;
    const pollsBefore = polls().length;
    await waitFor(() => polls().length >= pollsBefore + POLLS, {
      timeoutMs: POLLS * 4000 + 10_000,
      what: `${POLLS} polls`,
    });
    const measured = polls().slice(pollsBefore, pollsBefore + POLLS);
    const requestsPerPoll = (sim.counters.requests - requestsBefore) / (polls().length - pollsBefore);
    const rss = peakRssMb(/** @type {number} */ (collector.child.pid));
    const durations = measured.map((m) => Number(m[2]));
    console.log(
      `${String(concurrency).padStart(11)}  ${measured[0][1].padStart(12)}  ` +
        `${requestsPerPoll.toFixed(0).padStart(13)}  ${String(percentile(durations, 50)).padStart(11)}  ` +
        `${String(Math.max(...durations)).padStart(11)}  ${rss.toFixed(1).padStart(11)}`,
    );
    collector.child.kill('SIGTERM');
    await collector.exited;
  }
  const stored = (await db.query('SELECT count(*)::int AS n FROM instance_samples')).rows[0].n;
  console.log(`rows stored: ${stored}`);
} finally {
  await sim.close();
  await db.stop();
}
