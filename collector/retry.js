// Retry with exponential backoff and full jitter, shared by every HTTP source and the database sink.

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
 * Resolves after `ms`, or rejects at once when the signal aborts.
 * @param {number} ms @param {AbortSignal} [signal]
 */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason ?? new Error('aborted')); return; }
    const onAbort = () => { clearTimeout(timer); reject(signal?.reason ?? new Error('aborted')); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(undefined); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
