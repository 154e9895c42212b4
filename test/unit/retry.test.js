import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, rateLimitDelay, retry } from '../../core/retry.js';

describe('rateLimitDelay', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads Retry-After in seconds', () => assert.equal(rateLimitDelay({ 'retry-after': '3' }, now), 3000));
  it('reads Retry-After as an HTTP date', () =>
    assert.equal(rateLimitDelay({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }, now), 7000));
  it('reads X-RateLimit-Reset as epoch seconds, not a delta', () => {
    assert.equal(rateLimitDelay({ 'x-ratelimit-reset': String(now / 1000 + 42) }, now), 42_000);
    assert.equal(rateLimitDelay({ 'x-ratelimit-reset': String(now / 1000 - 5) }, now), 0);
  });
  it('prefers Retry-After and is undefined when neither header is there', () => {
    assert.equal(rateLimitDelay({ 'retry-after': '1', 'x-ratelimit-reset': String(now / 1000 + 60) }, now), 1000);
    assert.equal(rateLimitDelay({}, now), undefined);
  });
});

describe('backoffDelay', () => {
  const options = { retries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  it('grows exponentially up to the ceiling, with full jitter', () => {
    assert.equal(
      backoffDelay(0, options, () => 1),
      100,
    );
    assert.equal(
      backoffDelay(3, options, () => 1),
      800,
    );
    assert.equal(
      backoffDelay(4, options, () => 1),
      1000,
    );
    assert.equal(
      backoffDelay(9, options, () => 0.5),
      500,
    );
    assert.equal(
      backoffDelay(2, options, () => 0),
      0,
    );
  });
});

describe('retry', () => {
  const fast = { retries: 3, baseDelayMs: 1, maxDelayMs: 1 };

  it('returns the first success and counts the attempts it took', async () => {
    const attempts = [];
    const result = await retry(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 2) throw new Error(`fail ${attempt}`);
        return 'done';
      },
      { backoff: fast },
    );
    assert.equal(result, 'done');
    assert.deepEqual(attempts, [0, 1, 2]);
  });

  it('gives up after the last retry with the last error', async () => {
    let calls = 0;
    await assert.rejects(
      retry(
        async () => {
          calls += 1;
          throw new Error(`fail ${calls}`);
        },
        { backoff: fast },
      ),
      /fail 4/,
    );
    assert.equal(calls, 4);
  });

  it('does not retry what is not retryable', async () => {
    let calls = 0;
    const work = async () => {
      calls += 1;
      throw Object.assign(new Error('bad request'), { reason: 'http_400' });
    };
    await assert.rejects(
      retry(work, { backoff: fast, retryable: (e) => /** @type {any} */ (e).reason !== 'http_400' }),
      /bad request/,
    );
    assert.equal(calls, 1);
  });

  it('waits as long as the failure asks (Retry-After) instead of the backoff', async () => {
    /** @type {number[]} */
    const delays = [];
    let calls = 0;
    const work = async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('429'), { waitMs: 30 });
      return calls;
    };
    const started = Date.now();
    await retry(work, {
      backoff: { retries: 1, baseDelayMs: 10_000, maxDelayMs: 10_000 },
      delayOf: (e) => /** @type {any} */ (e).waitMs,
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });
    assert.deepEqual(delays, [30]);
    assert.ok(Date.now() - started >= 25);
  });

  it('stops waiting at once when aborted, with the abort reason', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const work = async () => {
      throw new Error('down');
    };
    const backoff = { retries: 5, baseDelayMs: 10_000, maxDelayMs: 10_000 };
    await assert.rejects(retry(work, { backoff, signal: controller.signal, delayOf: () => 10_000 }), /stop/);
    assert.ok(Date.now() - started < 1000);
  });
});
