// Drives a source: one poll -> records to every sink, with timing, success and error accounting
// done once here (sources never touch metrics). `schedule` runs polls on a cron, never overlapping.
import { setMaxListeners } from 'node:events';
import cron from 'node-cron';
import { SourceError } from './errors.js';

/**
 * @typedef {object} PollOutcome
 * @property {import('./types.js').InstanceSample[]} records
 * @property {boolean} complete
 * @property {Error | undefined} error
 * @property {number} durationMs
 *
 * @typedef {object} SourceState
 * @property {Date | undefined} lastSuccessAt
 * @property {Date | undefined} lastAttemptAt
 * @property {string | undefined} lastError
 * @property {number} polls
 * @property {number} failures
 * @property {number} skipped
 */

/**
 * @param {object} options
 * @param {import('./types.js').Source} options.source
 * @param {import('./types.js').Sink[]} options.sinks
 * @param {import('../exporters/prometheus.js').PrometheusSink['self']} options.metrics
 * @param {import('pino').Logger} options.log
 * @param {AbortSignal} [options.signal]
 */
export function createPoller({ source, sinks, metrics, log, signal = new AbortController().signal }) {
  const sourceLog = log.child({ source: source.name });
  // Every concurrent request of a poll listens on this one signal: more than Node's default 10.
  setMaxListeners(1000, signal);
  /** @type {SourceState} */
  const state = { lastSuccessAt: undefined, lastAttemptAt: undefined, lastError: undefined, polls: 0, failures: 0, skipped: 0 };

  /** @param {string} reason @param {string} detail */
  const warn = (reason, detail) => {
    metrics.warnings.inc({ source: source.name, reason });
    sourceLog.warn({ reason }, detail);
  };

  /**
   * One poll. Never throws: a failed poll is counted, logged and its partial records still written.
   * @param {Date} [now] @returns {Promise<PollOutcome>}
   */
  async function runOnce(now = new Date()) {
    const started = performance.now();
    state.lastAttemptAt = now;
    state.polls += 1;
    /** @type {PollOutcome['records']} */
    let records = [];
    /** @type {Error | undefined} */
    let error;
    try {
      records = await source.poll({ signal, log: sourceLog, now, warn });
    } catch (err) {
      error = /** @type {Error} */ (err);
      const reason = err instanceof SourceError ? err.reason : 'error';
      if (err instanceof SourceError) records = /** @type {PollOutcome['records']} */ (err.records);
      metrics.errors.inc({ source: source.name, reason });
      state.failures += 1;
      state.lastError = error.message;
      sourceLog.error({ err: error, kept: records.length }, `${source.name}: poll failed`);
    }
    const complete = error === undefined;
    for (const sink of sinks) sink.write(records, { source: source.name, complete });
    metrics.records.inc({ source: source.name }, records.length);
    const durationMs = performance.now() - started;
    metrics.pollDuration.observe({ source: source.name }, durationMs / 1000);
    if (complete) {
      state.lastSuccessAt = now;
      state.lastError = undefined;
      metrics.lastSuccess.set({ source: source.name }, now.getTime() / 1000);
    }
    sourceLog.debug({ records: records.length, durationMs: Math.round(durationMs), complete }, 'poll done');
    return { records, complete, error, durationMs };
  }

  return { name: source.name, runOnce, state, metrics, log: sourceLog };
}

/** @typedef {ReturnType<typeof createPoller>} Poller */

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
 * @param {Poller} poller
 * @param {string} expression
 * @param {{ afterPoll?: (outcome: PollOutcome) => void }} [hooks]
 */
export function schedule(poller, expression, hooks = {}) {
  /** @type {Promise<PollOutcome> | undefined} */
  let inFlight;
  const task = cron.schedule(expression, async (context) => {
    if (inFlight) return;
    inFlight = poller.runOnce(context.date ?? new Date());
    try {
      hooks.afterPoll?.(await inFlight);
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
