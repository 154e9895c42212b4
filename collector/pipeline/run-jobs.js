// The one loop that starts and stops the collector's jobs: each scheduled job on its cron (never
// two runs of one job at once), each push job opened; on stop, the schedules end (the runs in
// flight finish), then every job closes.
import { schedule } from './schedule.js';

/**
 * What the loop needs of a job (collector/jobs.js CollectorJob).
 * @typedef {object} LoopJob
 * @property {string} name
 * @property {string} [schedule]
 * @property {'push'} [trigger]
 * @property {import('./schedule.js').Schedulable} [run] one run, with the accounting every job shares
 * @property {(outcome: any) => void} [afterRun] after every scheduled run
 * @property {() => Promise<{ stop: () => Promise<void> }>} [start] opens a push job
 * @property {() => Promise<void>} [close] releases the job's clients once it no longer runs
 */

/**
 * A job's one run: every scheduled run of every job goes through here.
 * @param {LoopJob} job @param {Date} now
 */
function runJob(job, now) {
  return /** @type {import('./schedule.js').Schedulable} */ (job.run).runOnce(now);
}

/** @param {LoopJob[]} jobs */
export async function startJobs(jobs) {
  const scheduled = jobs
    .filter((job) => job.schedule && job.run)
    .map((job) => {
      const run = /** @type {import('./schedule.js').Schedulable} */ (job.run);
      const runnable = { ...run, runOnce: (/** @type {Date | undefined} */ now) => runJob(job, now ?? new Date()) };
      return { job, timer: schedule(runnable, /** @type {string} */ (job.schedule), { afterPoll: job.afterRun }) };
    });
  /** @type {Map<LoopJob, { stop: () => Promise<void> }>} */
  const started = new Map();
  try {
    for (const job of jobs) if (job.trigger && job.start) started.set(job, await job.start());
  } catch (err) {
    await Promise.all(scheduled.map(({ timer }) => timer.stop()));
    for (const opened of started.values()) await opened.stop();
    throw err;
  }
  return {
    /** The interval of a scheduled job. @param {LoopJob | undefined} job */
    intervalOf: (job) => scheduled.find((s) => s.job === job)?.timer.intervalMs ?? 0,
    /** What a push job's start returned. @param {LoopJob | undefined} job */
    startedOf: (job) => (job ? started.get(job) : undefined),
    /** Stops every schedule; resolves once the runs in flight have finished. */
    stopSchedules: () => Promise.all(scheduled.map(({ timer }) => timer.stop())),
    /**
     * Stops the push jobs (within `deadline`, ms since the epoch), then closes every job.
     * @param {number} deadline
     */
    async close(deadline) {
      for (const opened of started.values()) await withDeadline(opened.stop(), deadline);
      for (const job of jobs) await job.close?.();
    },
  };
}

/** @param {Promise<unknown>} work @param {number} deadline */
export function withDeadline(work, deadline) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
