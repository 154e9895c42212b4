// A command's start cost: `paasmon prune --dry-run` (days of partitions, none old enough to drop)
// and `paasmon report --runs R --format table` of a 10,000-request run, each timed as a whole
// process, next to `node -e 0` and `paasmon --help`; with BENCH_BEFORE_CLI (another checkout's
// collector/cli.js) both binaries in turns, in one run, so the machine's load falls on both alike.
// Run: npm run bench -- start   (BENCH_START_ROUNDS=15: medians of that many turns after a warm-up;
// BENCH_HOLD=1: keep the seeded database up and print its URL, for profiling by hand)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import pino from 'pino';
import { migrate } from '../exporters/postgres/schema/migrate.js';
import { CLI, childEnv } from '../test/support/cli.js';
import { startTestDatabase } from '../test/support/database.js';
import { seedRun } from '../test/support/report-runs.js';
import { cpuMs } from './support/peak-rss.js';

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 15);
const BEFORE_CLI = process.env.BENCH_BEFORE_CLI;

/**
 * Wall and CPU time of one child process, ms; it must succeed.
 * @param {string} command @param {string[]} args @param {Record<string, string>} env
 */
function timed(command, args, env) {
  const cpu = cpuMs('self').children;
  const started = performance.now();
  const run = spawnSync(command, args, { env: childEnv(env), encoding: 'utf8' });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr}`);
  return { ms, cpuMs: cpuMs('self').children - cpu };
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const db = await startTestDatabase({ bulk: true });
try {
  await migrate(db.pool, pino({ level: 'silent' }));
  const runId = await seedRun(db.query, {
    label: 'start bench',
    app: 'shop',
    implementation: 'java',
    instances: 2,
    coresPerInstance: 2,
    parallel: 4,
    start: new Date(Date.now() - 3_600_000),
    spanS: 60,
    successful: 9_990,
    serverErrors: 10,
    durationSql: '1 + (i::bigint * 7919 % 1000) / 50.0',
    cpuPolls: [150, 170],
  });
  if (process.env.BENCH_HOLD) {
    console.log(`DATABASE_URL=${db.url} run ${runId}; Ctrl-C ends it`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  } else timeCommands(db.url, runId);
} finally {
  await db.stop();
}

/** The turns of every command, and the table. @param {string} url @param {number} runId */
function timeCommands(url, runId) {
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  const before = new Date(Date.now() - 30 * 86_400_000).toISOString();
  /** @type {Array<[string, string, string[]]>} */
  const commands = [
    ['node -e 0', process.execPath, ['-e', '0']],
    ['paasmon --help', '', ['--help']],
    ['paasmon prune --dry-run', '', ['prune', '--before', before, '--dry-run']],
    ['paasmon report --format table', '', ['report', '--runs', String(runId), '--format', 'table']],
  ];
  const clis = [['now', CLI], ...(BEFORE_CLI ? [['before', BEFORE_CLI]] : [])];
  /** @type {Map<string, Array<{ ms: number, cpuMs: number }>>} */
  const times = new Map();
  for (let round = -1; round < ROUNDS; round++) {
    for (const [what, command, args] of commands) {
      for (const [name, cli] of command ? [['', '']] : clis) {
        const time = command ? timed(command, args, env) : timed(cli, args, env);
        const key = `${what}${name ? ` (${name})` : ''}`;
        if (round >= 0) times.set(key, [...(times.get(key) ?? []), time]);
      }
    }
  }
  console.log(
    `\n${'whole process'.padEnd(40)}${'median ms'.padStart(10)}${'min ms'.padStart(8)}${'CPU ms (mean)'.padStart(15)}`,
  );
  for (const [key, values] of times) {
    const walls = values.map((t) => t.ms);
    const cpu = values.reduce((sum, t) => sum + t.cpuMs, 0) / values.length;
    console.log(
      `${key.padEnd(40)}${median(walls).toFixed(0).padStart(10)}${Math.min(...walls)
        .toFixed(0)
        .padStart(8)}` + `${cpu.toFixed(0).padStart(15)}`,
    );
  }
  const report = median((times.get('paasmon report --format table (now)') ?? []).map((t) => t.ms));
  console.log(
    `\ngoal paasmon report (whole process) <= 500 ms: ${report.toFixed(0)} ms, ${report <= 500 ? 'met' : 'NOT met'}` +
      ` (this run's 10,000 requests alone in the database)`,
  );
  console.log(
    `median of ${ROUNDS} turns after a warm-up; machine load average ` +
      fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  );
}
