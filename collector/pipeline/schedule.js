// Runs a job on a cron with seconds (node-cron), never two runs of one job at once.
import cron from 'node-cron';

/**
 * Milliseconds between the next two runs of a cron expression.
 * @param {import('node-cron').ScheduledTask} task
 */
function intervalOf(task) {
  const [a, b] = task.getNextRuns(2);
  return a && b ? b.getTime() - a.getTime() : 60_000;
}

/**
 * node-cron's own messages into the job's log, one stream and one format: its overlap warning is
 * the skipped poll this module counts and logs itself, so it (and any other) goes at debug; errors stay errors.
 * @param {import('pino').Logger} log
 * @returns {import('node-cron').Logger}
 */
function cronLogger(log) {
  const debug = (/** @type {string | Error} */ message) => log.debug({ from: 'node-cron' }, String(message));
  return {
    info: debug,
    warn: debug,
    debug,
    error: (message, err) =>
      log.error({ from: 'node-cron', err: message instanceof Error ? message : err }, String(message)),
  };
}

/**
 * @typedef {object} Schedulable
 * @property {string} name
 * @property {(now?: Date) => Promise<unknown>} runOnce
 * @property {import('./job.js').JobState} state
 * @property {import('./job.js').SelfMetrics} metrics
 * @property {import('pino').Logger} log
 */

/**
 * Runs `poller` on `expression` (cron with seconds). A poll still running when the next is due
 * means the next is skipped and counted: never two polls of one source at once.
 * @param {Schedulable} poller
 * @param {string} expression
 * @param {{ afterPoll?: (outcome: any) => void }} [hooks] afterPoll gets what runOnce returned
 */
export function schedule(poller, expression, hooks = {}) {
  /** @type {Promise<unknown> | undefined} */
  let inFlight;
  const task = cron.schedule(
    expression,
    async (context) => {
      if (inFlight) return;
      inFlight = poller.runOnce(context.date ?? new Date());
      try {
        // Awaited on its own line: in `hooks.afterPoll?.(await inFlight)` the await is skipped when
        // there is no hook, and the next poll would start while this one still runs.
        const outcome = await inFlight;
        hooks.afterPoll?.(outcome);
      } finally {
        inFlight = undefined;
      }
    },
    { name: poller.name, noOverlap: true, logger: cronLogger(poller.log) },
  );
  task.on('execution:overlap', () => {
    poller.state.skipped += 1;
    poller.metrics.skipped.inc({ source: poller.name });
    poller.log.warn('previous poll still running; this one skipped');
  });
  // A time that passed while the event loop was blocked is not run (node-cron warns only when nobody listens).
  task.on('execution:missed', (context) =>
    poller.log.warn({ due: context.date }, 'a poll was due while the process was busy; that one did not run'),
  );
  const intervalMs = intervalOf(task);
  return {
    intervalMs,
    /** Stops scheduling and resolves when the poll in flight (if any) has finished. */
    async stop() {
      await task.stop();
      await inFlight;
      await task.destroy();
    },
  };
}
