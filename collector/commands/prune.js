// `paasmon prune [--before T] [--dry-run]`: drops the day partitions of the raw rows older than
// the limit (RETENTION, or --before), after storing the report figures of the runs in them.
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { preparePartitions } from '../../exporters/postgres/partitions.js';
import { prune, retentionLimit } from '../../exporters/postgres/retention.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { timeFlag } from './flags.js';

/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ before?: string, dryRun?: boolean }} flags
 */
export async function pruneCommand(config, { log, out }, flags) {
  const now = new Date();
  let before;
  if (flags.before !== undefined) before = new Date(timeFlag(flags.before, '--before', now));
  else if (config.retentionMs !== undefined) before = retentionLimit(config.retentionMs, now);
  else
    throw new ConfigError('nothing to prune: set RETENTION (e.g. 180d) or give --before T', {
      variable: 'RETENTION',
    });
  return withMigratedDatabase(config, log, async (pool) => {
    // Rows of old days that reached the default partition go to partitions of their own first.
    await preparePartitions(pool);
    const result = await prune(pool, { before, trim: DEFAULT_TRIM, dryRun: flags.dryRun === true, log });
    const verb = flags.dryRun ? 'would drop' : 'dropped';
    const days = new Set(result.partitions.map((p) => p.from.toISOString().slice(0, 10)));
    out(
      `${verb} ${result.partitions.length} partitions (${days.size} days before ` +
        `${result.limit.toISOString()}, ${megabytes(result.bytes)}); ` +
        `${result.runIds.length} runs ${flags.dryRun ? 'would keep' : 'keep'} only their stored figures`,
    );
    for (const p of result.partitions) out(`  ${p.partition}  ${megabytes(p.bytes)}`);
    return 0;
  });
}

/**
 * One round of retention for `collect`: prunes when RETENTION is set, logs what went.
 * @param {import('pg').Pool} pool @param {number | undefined} retentionMs @param {import('pino').Logger} log
 */
export async function pruneOnSchedule(pool, retentionMs, log) {
  if (retentionMs === undefined) return;
  const result = await prune(pool, { before: retentionLimit(retentionMs), trim: DEFAULT_TRIM, log });
  if (result.partitions.length || result.runIds.length)
    log.info({ partitions: result.partitions.length, runs: result.runIds, bytes: result.bytes }, 'pruned');
}

/** How often `collect` makes the coming days' partitions and, with RETENTION, prunes. */
const RETENTION_INTERVAL_MS = 3_600_000;

/**
 * `collect`'s partition upkeep: once the schema is ready and then every hour, the coming days'
 * partitions, and with RETENTION a prune. A failed round is logged; the next one tries again.
 * @param {import('pg').Pool} pool @param {number | undefined} retentionMs @param {import('pino').Logger} log
 * @param {Promise<boolean>} schemaReady
 * @returns {{ stop: () => Promise<void> }}
 */
export function startRetentionJob(pool, retentionMs, log, schemaReady) {
  return startRounds(RETENTION_INTERVAL_MS, schemaReady, async () => {
    try {
      await preparePartitions(pool);
      await pruneOnSchedule(pool, retentionMs, log);
    } catch (err) {
      log.warn({ reason: /** @type {Error} */ (err).message }, 'partition upkeep failed; next round in an hour');
    }
  });
}

/**
 * `round` once the schema is ready and then every `intervalMs`, one round at a time; stop waits
 * for the round in progress.
 * @param {number} intervalMs @param {Promise<boolean>} schemaReady @param {() => Promise<void>} round never throws
 * @returns {{ stop: () => Promise<void> }}
 */
export function startRounds(intervalMs, schemaReady, round) {
  /** @type {Promise<void>} */
  let running = Promise.resolve();
  let stopped = false;
  const next = () => {
    if (stopped) return;
    running = running.then(async () => {
      if (await schemaReady) await round();
    });
  };
  next();
  const timer = setInterval(next, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
