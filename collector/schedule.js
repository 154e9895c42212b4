// Drives a source: one poll -> records to every sink, with timing, success and error accounting
// done once here (sources never touch metrics). `schedule` runs polls on a cron, never overlapping.
import { setMaxListeners } from 'node:events';
import cron from 'node-cron';
import { SourceError } from './errors.js';

/**
 * @typedef {object} JobState
 * @property {Date | undefined} lastSuccessAt
 * @property {Date | undefined} lastAttemptAt
 * @property {string | undefined} lastError
 * @property {number} polls
 * @property {number} failures
 * @property {number} skipped
 *
 * @typedef {import('../exporters/prometheus.js').PrometheusSink['self']} SelfMetrics
 */

/**
 * A unit of scheduled work with the accounting every source shares: duration, errors by reason,
 * warnings, last success. `work` gets a PollContext and returns how many records it produced.
 * @template {{ records: number }} R
 * @param {object} options
 * @param {string} options.name
 * @param {(ctx: import('./types.js').PollContext) => Promise<R>} options.work
 * @param {SelfMetrics} options.metrics
 * @param {import('pino').Logger} options.log
 * @param {AbortSignal} [options.signal]
 */
export function createJob({ name, work, metrics, log, signal = new AbortController().signal }) {
  const jobLog = log.child({ source: name });
  // Every concurrent request of a poll listens on this one signal: more than Node's default 10.
  setMaxListeners(1000, signal);
  /** @type {JobState} */
  const state = { lastSuccessAt: undefined, lastAttemptAt: undefined, lastError: undefined, polls: 0, failures: 0, skipped: 0 };

  /** @param {string} reason @param {string} detail */
  const warn = (reason, detail) => {
    metrics.warnings.inc({ source: name, reason });
    jobLog.warn({ reason }, detail);
  };

  /**
   * Runs the work once. Never throws: a failure is counted, logged and returned.
   * @param {Date} [now] @returns {Promise<{ result: R | undefined, error: Error | undefined, durationMs: number }>}
   */
  async function runOnce(now = new Date()) {
    const started = performance.now();
    state.lastAttemptAt = now;
    state.polls += 1;
    /** @type {R | undefined} */
    let result;
    /** @type {Error | undefined} */
    let error;
    try {
      result = await work({ signal, log: jobLog, now, warn });
    } catch (err) {
      error = /** @type {Error} */ (err);
      metrics.errors.inc({ source: name, reason: reasonOf(err) });
      state.failures += 1;
      state.lastError = error.message;
      jobLog.error({ err: error }, `${name}: failed`);
    }
    const durationMs = performance.now() - started;
    metrics.pollDuration.observe({ source: name }, durationMs / 1000);
    if (!error) {
      state.lastSuccessAt = now;
      state.lastError = undefined;
      metrics.lastSuccess.set({ source: name }, now.getTime() / 1000);
    }
    if (result) metrics.records.inc({ source: name }, result.records);
    jobLog.debug({ records: result?.records ?? 0, durationMs: Math.round(durationMs), complete: !error }, 'poll done');
    return { result, error, durationMs };
  }

  return { name, runOnce, state, metrics, log: jobLog };
}

/** @param {unknown} err */
function reasonOf(err) {
  const reason = /** @type {any} */ (err)?.reason;
  return typeof reason === 'string' ? reason : 'error';
}

/** @typedef {ReturnType<typeof createJob>} Job */

/**
 * A source polled into sinks: the records of a failed poll that the source still returns
 * (SourceError.records) are written too, marked incomplete.
 * @param {object} options
 * @param {import('./types.js').Source} options.source
 * @param {import('./types.js').Sink[]} options.sinks
 * @param {SelfMetrics} options.metrics
 * @param {import('pino').Logger} options.log
 * @param {AbortSignal} [options.signal]
 */
export function createPoller({ source, sinks, metrics, log, signal }) {
  /** @type {import('./types.js').InstanceSample[]} */
  let last = [];
  const job = createJob({
    name: source.name, metrics, log, signal,
    work: async (ctx) => {
      let records;
      try {
        records = await source.poll(ctx);
      } catch (err) {
        last = err instanceof SourceError ? /** @type {import('./types.js').InstanceSample[]} */ (err.records) : [];
        for (const sink of sinks) sink.write(last, { source: source.name, complete: false });
        if (last.length) ctx.log.warn({ kept: last.length }, 'partial poll: samples fetched before the failure are kept');
        throw err;
      }
      last = records;
      for (const sink of sinks) sink.write(records, { source: source.name, complete: true });
      return { records: records.length };
    },
  });
  return {
    ...job,
    /** One poll; its samples (also of a failed poll) with the outcome. @param {Date} [now] */
    async runOnce(now) {
      const outcome = await job.runOnce(now);
      return { records: last, complete: !outcome.error, error: outcome.error, durationMs: outcome.durationMs };
    },
  };
}


/**
 * Milliseconds between the next two runs of a cron expression.
 * @param {import('node-cron').ScheduledTask} task
 */
function intervalOf(task) {
  const [a, b] = task.getNextRuns(2);
  return a && b ? b.getTime() - a.getTime() : 60_000;
}

/**
 * Runs `poller` on `expression` (cron with seconds). A poll still running when the next is due
 * means the next is skipped and counted: never two polls of one source at once.
 * @param {{ name: string, runOnce: (now?: Date) => Promise<unknown>, state: JobState, metrics: SelfMetrics, log: import('pino').Logger }} poller
 * @param {string} expression
 * @param {{ afterPoll?: () => void }} [hooks]
 */
export function schedule(poller, expression, hooks = {}) {
  /** @type {Promise<unknown> | undefined} */
  let inFlight;
  const task = cron.schedule(expression, async (context) => {
    if (inFlight) return;
    inFlight = poller.runOnce(context.date ?? new Date());
    try {
      await inFlight;
      hooks.afterPoll?.();
    } finally {
      inFlight = undefined;
    }
  }, { name: poller.name, noOverlap: true });
  task.on('execution:overlap', () => {
    poller.state.skipped += 1;
    poller.metrics.skipped.inc({ source: poller.name });
    poller.log.warn('previous poll still running; this one skipped');
  });
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
