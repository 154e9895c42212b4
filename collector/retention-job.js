// `collect`'s partition upkeep: the coming days' partitions, and with RETENTION a prune of the day
// partitions older than the limit (what `paasmon prune` does once), every hour.
import { preparePartitions } from '../exporters/postgres/schema/partitions.js';
import { prune, retentionLimit } from '../exporters/postgres/schema/retention.js';
import { DEFAULT_TRIM } from '../report/default-trim.js';

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
