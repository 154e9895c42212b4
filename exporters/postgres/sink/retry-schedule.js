// The PostgreSQL sink's retry policy: after a failed write the next attempt waits a growing backoff;
// a successful write resets it.
import { backoffDelay } from '../../../core/retry.js';

/**
 * @param {object} options
 * @param {import('../../../core/retry.js').BackoffOptions} options.backoff
 * @param {import('pino').Logger} options.log
 */
export function createRetrySchedule({ backoff, log }) {
  let failures = 0;
  let nextAttemptAt = 0;
  /** @type {Error | undefined} */
  let lastError;

  return {
    /** Milliseconds until the next attempt is due (zero or less: now). */
    msUntilNextAttempt: () => nextAttemptAt - Date.now(),

    succeeded() {
      if (failures > 0) log.info({ failures }, 'postgres: writing again after an outage');
      failures = 0;
      lastError = undefined;
    },

    /** @param {Error} err @param {number} pending rows kept for the next attempt */
    failed(err, pending) {
      lastError = err;
      const retryInMs = backoffDelay(failures, { ...backoff, retries: Infinity });
      failures += 1;
      nextAttemptAt = Date.now() + retryInMs;
      log.warn({ err, pending, retryInMs }, 'postgres: write failed; records kept for the next attempt');
    },

    /** The last write error, cleared by a successful write. */
    get lastError() {
      return lastError;
    },
  };
}
