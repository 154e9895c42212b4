// A run's figures kept by the commands that change its data (docs/architecture.md, "A run's
// figures"): at the end of a run stop, an import or a load, and by `collect`'s upkeep for runs
// whose figures later writes (late router records) made stale.
import { databaseNow, refreshRunFigures, staleRuns } from '../exporters/postgres/schema/run-figures.js';
import { DEFAULT_TRIM } from '../report/default-trim.js';
import { startRounds } from './retention-job.js';

/** How often `collect` refreshes stale figures, how long a run must be quiet first, and how many a round. */
const FIGURES_INTERVAL_MS = 60_000;
const QUIET_MS = 60_000;
const RUNS_PER_ROUND = 5;
/** How many runs' figures a writing command stores again at its end. */
const RUNS_PER_WRITE = 20;

/**
 * Stores the figures of a run that has ended (over the whole run and the report's default steady
 * window). Not being able to costs only time later (a report computes them meanwhile): logged, not thrown.
 * @param {import('pg').Pool} pool @param {number} runId @param {import('pino').Logger} log
 */
export async function keepRunFigures(pool, runId, log) {
  try {
    await refreshRunFigures(pool, [runId], [DEFAULT_TRIM]);
  } catch (err) {
    log.warn({ runId, reason: /** @type {Error} */ (err).message }, 'run figures not stored now; collect stores them');
  }
}

/**
 * Around a command that writes raw rows into runs it does not end (`ingest` of late router logs):
 * `work`, then the figures it made stale stored again (of up to RUNS_PER_WRITE ended runs; collect
 * stores the others), so the next report reads them.
 * @template T
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log @param {() => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function keepWrittenFigures(pool, log, work) {
  const since = await databaseNow(pool);
  const result = await work();
  try {
    const runs = await staleRuns(pool, { quietMs: 0, limit: RUNS_PER_WRITE, since });
    await refreshRunFigures(pool, runs, [DEFAULT_TRIM]);
  } catch (err) {
    log.warn({ reason: /** @type {Error} */ (err).message }, 'run figures not stored now; collect stores them');
  }
  return result;
}

/**
 * `collect`'s upkeep of figures: every minute, those of up to a few ended runs made stale by
 * writes and quiet since.
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log @param {Promise<boolean>} schemaReady
 * @returns {{ stop: () => Promise<void> }}
 */
export function startFiguresJob(pool, log, schemaReady) {
  return startRounds(FIGURES_INTERVAL_MS, schemaReady, async () => {
    try {
      const runs = await staleRuns(pool, { quietMs: QUIET_MS, limit: RUNS_PER_ROUND });
      const refreshed = await refreshRunFigures(pool, runs, [DEFAULT_TRIM]);
      if (refreshed.length) log.debug({ runs: refreshed }, 'stale run figures stored again');
    } catch (err) {
      log.warn({ reason: /** @type {Error} */ (err).message }, 'run figures upkeep failed; next round in a minute');
    }
  });
}
