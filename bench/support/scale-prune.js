// `paasmon prune` in the scale bench's grown database, timed whole (a process as an operator runs
// it) and step by step (its debug log: migrate's and prune's steps), next to a bare baseline of
// the kernel truncating files of the dropped relations' sizes. Two settings: the old partitions
// as the bench left them (written moments before, in the page cache), and as in a real database,
// where days past a retention limit were written and checkpointed long ago (CHECKPOINT, sync, their
// files' pages given back to the kernel before the prune).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { runCli } from '../../test/support/cli.js';
import { cachedBytes, dropFromCache, relationFiles } from './page-cache.js';
import { relationSizes, timeTruncate } from './truncate-baseline.js';

/** @param {number} bytes */
const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;

/** The steps a command's debug log gave (`migrate steps`, `prune steps`). @param {string} stderr */
function loggedSteps(stderr) {
  /** @type {Record<string, Record<string, number>>} */
  const steps = {};
  for (const line of stderr.split('\n')) {
    try {
      const entry = JSON.parse(line);
      if (entry.steps) steps[String(entry.msg).split(' ')[0]] = entry.steps;
    } catch {
      /* not a log line */
    }
  }
  return steps;
}

/** @param {Record<string, number> | undefined} steps */
const stepList = (steps) =>
  Object.entries(steps ?? {})
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');

/** A directory's file system and mount options (online `discard` slows truncation). @param {string} dir */
function mountOf(dir) {
  const run = spawnSync('findmnt', ['-no', 'FSTYPE,OPTIONS', '-T', dir], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : 'unknown (no findmnt)';
}

/** Dirty pages of the whole machine, from /proc/meminfo. */
function dirtyMib() {
  const line = fs.readFileSync('/proc/meminfo', 'utf8').match(/^Dirty:\s+(\d+) kB/m);
  return line ? `${(Number(line[1]) / 1024).toFixed(0)} MiB` : 'unknown';
}

/**
 * Times `paasmon prune --before limit` (and its --dry-run) in `db`; `uncache`: the dropped
 * partitions' pages given back to the kernel first.
 * @param {any} db @param {{ limit: string, uncache: boolean, label: string }} options
 * @returns {Promise<number>} the prune's wall time, ms
 */
export async function timePrune(db, { limit, uncache, label }) {
  const { rows } = await db.query('SELECT partition FROM paasmon_partitions() WHERE to_ts <= $1', [limit]);
  const partitions = rows.map((/** @type {any} */ r) => String(r.partition));
  const relations = await relationSizes(db, partitions);
  const { rows: counts } = await db.query(
    `SELECT (SELECT count(*) FROM router_requests)::bigint AS router, (SELECT count(*) FROM loadgen_requests)::bigint
       AS loadgen, (SELECT count(*) FROM paasmon_partitions()) AS partitions,
       pg_database_size(current_database()) AS bytes`,
  );
  const before = counts[0];
  const env = { DATABASE_URL: db.url, LOG_LEVEL: 'debug' };
  const dryStarted = performance.now();
  await runCli(['prune', '--before', limit, '--dry-run'], env);
  const dryMs = performance.now() - dryStarted;
  const files = await relationFiles(db, partitions);
  let setting = 'as the bench left them';
  if (uncache) {
    await db.query('CHECKPOINT');
    setting = `CHECKPOINT, sync, their pages ${dropFromCache(files)}`;
  }
  const cached = cachedBytes(files);
  const dirty = dirtyMib();
  const started = performance.now();
  const prune = await runCli(['prune', '--before', limit], env);
  const pruneMs = performance.now() - started;
  if (prune.code !== 0) throw new Error(`paasmon prune failed: ${prune.stderr}`);
  const bytesAfter = Number((await db.query('SELECT pg_database_size(current_database()) AS b')).rows[0].b);
  const steps = loggedSteps(prune.stderr);
  const serial = await timeTruncate(db.dir, relations, { cached: !uncache });
  const byParent = await timeTruncate(db.dir, relations, { cached: !uncache, byParent: true });
  const total = relations.reduce((sum, r) => sum + r.bytes, 0);
  console.log(
    `\npaasmon prune, ${label}: ${pruneMs.toFixed(0)} ms (whole process; goal < 2000 ms: ` +
      `${pruneMs < 2000 ? 'met' : 'NOT met'}); the same with --dry-run ${dryMs.toFixed(0)} ms`,
  );
  console.log(
    `  database before: ${before.router} router rows, ${before.loadgen} load-generator rows, ` +
      `${before.partitions} partitions, ${mib(Number(before.bytes))}; after: ${mib(bytesAfter)}`,
  );
  console.log(`  ${prune.stdout.split('\n')[0]}`);
  console.log(
    `  old partitions' files: ${setting}; cached at the prune: ` +
      `${cached === undefined ? 'unknown (no fincore)' : mib(cached)} of ${mib(total)}; machine's dirty pages ${dirty}`,
  );
  console.log(`  the data directory's file system: ${mountOf(db.dir)}`);
  console.log(`  steps, ms: migrate (${stepList(steps.migrate)}); prune (${stepList(steps.prune)})`);
  const perParent = byParent.each?.map((ms, i) => `${byParent.parents?.[i]} ${ms.toFixed(0)}`).join(', ');
  console.log(
    `  bare baseline, the kernel truncating ${relations.length} files of the dropped relations' sizes ` +
      `(${mib(total)}, ${uncache ? 'written out, not cached' : 'in the page cache'}): serially ` +
      `${serial.ms.toFixed(0)} ms; by parent table, ${byParent.each?.length} processes at once ` +
      `${byParent.ms.toFixed(0)} ms (${perParent})`,
  );
  return pruneMs;
}
