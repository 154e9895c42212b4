// `collect`'s partition upkeep: the coming days' partitions, and with RETENTION a prune of the day
// partitions older than the limit (what `paasmon prune` does once), every hour.
import { preparePartitions } from '../exporters/postgres/partitions.js';
import { prune, retentionLimit } from '../exporters/postgres/retention.js';
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
  /** @type {Promise<void>} */
  let running = Promise.resolve();
  let stopped = false;
  const round = () => {
    if (stopped) return;
    running = running.then(async () => {
      if (!(await schemaReady)) return;
      try {
        await preparePartitions(pool);
        await pruneOnSchedule(pool, retentionMs, log);
      } catch (err) {
        log.warn({ reason: /** @type {Error} */ (err).message }, 'partition upkeep failed; next round in an hour');
      }
    });
  };
  round();
  const timer = setInterval(round, RETENTION_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
