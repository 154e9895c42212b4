// Retry with exponential backoff and full jitter, shared by every HTTP source, the migrations,
// the router-log ingest and the database sink.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @typedef {object} BackoffOptions
 * @property {number} retries attempts after the first
 * @property {number} baseDelayMs first backoff ceiling; doubles per attempt
 * @property {number} maxDelayMs ceiling of any single wait
 */

/** @type {BackoffOptions} */
export const DEFAULT_BACKOFF = Object.freeze({ retries: 5, baseDelayMs: 250, maxDelayMs: 10_000 });

/**
 * Full jitter ("Exponential Backoff and Jitter", AWS architecture blog): a uniform wait in
 * [0, min(max, base * 2^attempt)], so many clients that failed together do not retry together.
 * @param {number} attempt 0 for the first retry
 * @param {BackoffOptions} options
 * @param {() => number} [random]
 */
export function backoffDelay(attempt, options, random = Math.random) {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

/**
 * Seconds to wait from a 429: `Retry-After` (seconds or an HTTP date), else `X-RateLimit-Reset`
 * (Unix epoch seconds, not a delta). Undefined when neither says.
 * @param {Record<string, unknown>} headers lower-case names
 * @param {number} nowMs
 * @returns {number | undefined} milliseconds
 */
export function rateLimitDelay(headers, nowMs) {
  const retryAfter = headers['retry-after'];
  if (retryAfter !== undefined && retryAfter !== '') {
    const text = String(retryAfter).trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  }
  const reset = headers['x-ratelimit-reset'];
  if (reset !== undefined && /^\d+$/.test(String(reset).trim())) {
    return Math.max(0, Number(reset) * 1000 - nowMs);
  }
  return undefined;
}

/**
 * @typedef {object} RetryOptions
 * @property {BackoffOptions} [backoff] retries (Infinity allowed) and the full-jitter delays
 * @property {AbortSignal} [signal] aborts the wait between attempts (and rejects with its reason)
 * @property {(err: unknown) => boolean} [retryable] which failures are worth another attempt (all by default)
 * @property {(err: unknown) => number | undefined} [delayOf] a wait the failure itself asks for (Retry-After)
 * @property {(event: { err: unknown, attempt: number, delayMs: number }) => void} [onRetry]
 */

/**
 * Runs `work` until it succeeds, a failure is not retryable, or the retries are spent; the one
 * retry loop of paasmon (HTTP sources, migrations, expired search contexts).
 * @template T
 * @param {(attempt: number) => Promise<T>} work
 * @param {RetryOptions} [options]
 * @returns {Promise<T>}
 */
export async function retry(work, options = {}) {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
      if (options.signal?.aborted || attempt >= backoff.retries) throw err;
      if (options.retryable && !options.retryable(err)) throw err;
      const delayMs = options.delayOf?.(err) ?? backoffDelay(attempt, backoff);
      options.onRetry?.({ err, attempt: attempt + 1, delayMs });
      await sleep(delayMs, undefined, { signal: options.signal }).catch((abort) => {
        throw options.signal?.reason ?? abort;
      });
    }
  }
}
