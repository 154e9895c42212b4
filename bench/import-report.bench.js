// From a JMeter JTL to an HTML report: `paasmon import` of BENCH_LINES (300,000) requests into a real
// PostgreSQL and the first `paasmon report --format html` of the run, next to JMeter's own dashboard
// of the same file (`jmeter -g JTL -o DIR`, with the heap the jmeter script gives it). Seconds, CPU
// seconds (paasmon's with its database's) and peak RSS of each (goal: paasmon's two no slower than
// JMeter); then the report again with --recompute (from the raw rows) before and after an ANALYZE of
// everything: the import leaves fresh statistics when the two agree.
// Run: npm run bench -- import-report (JMeter from test/support/load-tools/install.sh)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestDatabase } from '../test/support/database.js';
import { TOOLS_DIR } from '../test/support/load-tools.js';
import { cpuMs, timedCli, timedCommand } from './support/peak-rss.js';
import { resultLines, writeLines } from './support/results-file.js';

const LINES = Number(process.env.BENCH_LINES ?? 300_000);
const LAUNCHER = path.join(TOOLS_DIR, 'jmeter-5.6.3/bin/ApacheJMeter.jar');
// What JMeter's bin/jmeter script passes to the JVM unless HEAP is set.
const JMETER_HEAP = ['-Xms1g', '-Xmx1g', '-XX:MaxMetaspaceSize=256m'];

/** @param {string} name @param {{ seconds: number, cpuSeconds: number, peakMb: number }} t */
const row = (name, t) =>
  `${name.padEnd(44)} ${t.seconds.toFixed(1).padStart(6)} s ${t.cpuSeconds.toFixed(1).padStart(6)} s ` +
  `${t.peakMb.toFixed(0).padStart(5)} MB`;

/** The partitions holding the imported rows: rows, and the planner's estimate (-1: never analyzed). */
const STATISTICS_SQL = `SELECT c.relname, c.reltuples::bigint AS estimated, n.rows
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  CROSS JOIN LATERAL (SELECT count(*)::bigint AS rows FROM loadgen_requests r WHERE r.tableoid = c.oid) n
  WHERE i.inhparent = 'loadgen_requests'::regclass AND n.rows > 0 ORDER BY 1`;

if (!fs.existsSync(LAUNCHER)) {
  console.error(`JMeter is not installed (${LAUNCHER} is missing): run bash test/support/load-tools/install.sh`);
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-import-report-bench-'));
const db = await startTestDatabase({ bulk: true });
try {
  const jtl = path.join(dir, 'results.jtl');
  await writeLines(jtl, resultLines(LINES, 'jmeter'));
  const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  await timedCli(['migrate'], env);
  console.log(
    `${LINES} lines of JTL; ${os.cpus().length} cores, shared with other work (figures vary run to run); ` +
      `load average ${os.loadavg()[0].toFixed(1)}`,
  );

  // paasmon's CPU is its own and its database's (the postmaster's and its ended backends').
  const databaseCpuMs = () => Object.values(cpuMs(/** @type {number} */ (db.pid))).reduce((a, b) => a + b);
  const paasmon = async (/** @type {string[]} */ args) => {
    const cpu = databaseCpuMs();
    const done = await timedCli(args, env);
    return { ...done, cpuSeconds: done.cpuSeconds + (databaseCpuMs() - cpu) / 1000 };
  };
  const imported = await paasmon(['import', jtl, '--app', 'shop', '--label', 'bench']);
  const runId = /into run (\d+)/.exec(imported.stdout)?.[1] ?? '0';
  const statistics = (await db.query(STATISTICS_SQL)).rows;
  const report = (/** @type {string} */ name, /** @type {string[]} */ more = []) =>
    paasmon(['report', '--runs', runId, '--format', 'html', '--out', path.join(dir, name), ...more]);
  const first = await report('first.html');
  const recomputed = await report('recomputed.html', ['--recompute']);
  const started = performance.now();
  await db.query('ANALYZE');
  const analyzeSeconds = (performance.now() - started) / 1000;
  const recomputedAfter = await report('recomputed-after.html', ['--recompute']);
  const firstAfter = await report('after.html');

  const jmeter = await timedCommand('java', [
    ...JMETER_HEAP,
    `-Djava.util.prefs.userRoot=${path.join(dir, 'prefs')}`,
    '-jar',
    LAUNCHER,
    '-g',
    jtl,
    '-o',
    path.join(dir, 'dashboard'),
    '-j',
    path.join(dir, 'jmeter.log'),
    '-Jsample_variables=paasmon_id',
  ]);
  if (!fs.existsSync(path.join(dir, 'dashboard', 'index.html'))) throw new Error('jmeter -g wrote no index.html');

  const both = {
    seconds: imported.seconds + first.seconds,
    cpuSeconds: imported.cpuSeconds + first.cpuSeconds,
    peakMb: Math.max(imported.peakMb, first.peakMb),
  };
  console.log(`${''.padEnd(44)} seconds   CPU s  peak RSS`);
  console.log(row('paasmon import', imported));
  console.log(row('paasmon report --format html (first)', first));
  console.log(row('paasmon import + first html report', both));
  console.log(row('jmeter -g JTL -o DIR (JMeter 5.6.3)', jmeter));
  console.log(
    `paasmon / jmeter: ${(both.seconds / jmeter.seconds).toFixed(2)} (goal <= 1), ` +
      `CPU ${(both.cpuSeconds / jmeter.cpuSeconds).toFixed(2)}`,
  );
  const estimates = statistics.map((p) => `${p.relname} ${p.rows} rows, estimated ${p.estimated}`);
  console.log(`after the import, the planner's statistics: ${estimates.join('; ')}`);
  console.log(row('report --recompute, before ANALYZE', recomputed));
  console.log(row(`report --recompute, after ANALYZE (${analyzeSeconds.toFixed(1)} s)`, recomputedAfter));
  console.log(row('report (stored figures), after ANALYZE', firstAfter));
} finally {
  await db.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
