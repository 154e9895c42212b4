// A unit of scheduled work with the accounting every stage shares, done once here (sources never
// touch metrics): duration, errors by reason, warnings, records, last success.
import { setMaxListeners } from 'node:events';
import { reasonOf } from '../../core/errors.js';

/**
 * @typedef {object} JobState
 * @property {Date | undefined} lastSuccessAt
 * @property {Date | undefined} lastAttemptAt
 * @property {string | undefined} lastError
 * @property {number} polls
 * @property {number} failures
 * @property {number} skipped
 * @property {Array<{ reason: string, detail: string }>} lastWarnings of the last finished run (e.g. an app not found)
 *
 * @typedef {import('../../exporters/prometheus.js').PrometheusSink['self']} SelfMetrics
 */

/**
 * A unit of scheduled work with the accounting every source shares: duration, errors by reason,
 * warnings, last success. `work` gets a PollContext and returns how many records it produced.
 * @template {{ records: number }} R
 * @param {object} options
 * @param {string} options.name
 * @param {(ctx: import('../../core/types.js').PollContext) => Promise<R>} options.work
 * @param {SelfMetrics} options.metrics
 * @param {import('pino').Logger} options.log
 * @param {AbortSignal} [options.signal]
 */
export function createJob({ name, work, metrics, log, signal = new AbortController().signal }) {
  const jobLog = log.child({ source: name });
  // Every concurrent request of a poll listens on this one signal: more than Node's default 10.
  setMaxListeners(1000, signal);
  /** @type {JobState} */
  const state = {
    lastSuccessAt: undefined,
    lastAttemptAt: undefined,
    lastError: undefined,
    polls: 0,
    failures: 0,
    skipped: 0,
    lastWarnings: [],
  };

  /** Warnings of the run in progress. @type {JobState['lastWarnings']} */
  let warnings = [];
  /** @param {string} reason @param {string} detail */
  const warn = (reason, detail) => {
    metrics.warnings.inc({ source: name, reason });
    warnings.push({ reason, detail });
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
    warnings = [];
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
    state.lastWarnings = warnings;
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

/** @typedef {ReturnType<typeof createJob>} Job */
