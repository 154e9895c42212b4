import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, rateLimitDelay, sleep } from '../../collector/retry.js';

describe('rateLimitDelay', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it('reads Retry-After in seconds', () => assert.equal(rateLimitDelay({ 'retry-after': '3' }, now), 3000));
  it('reads Retry-After as an HTTP date', () => assert.equal(rateLimitDelay({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }, now), 7000));
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
    assert.equal(backoffDelay(0, options, () => 1), 100);
    assert.equal(backoffDelay(3, options, () => 1), 800);
    assert.equal(backoffDelay(4, options, () => 1), 1000);
    assert.equal(backoffDelay(9, options, () => 0.5), 500);
    assert.equal(backoffDelay(2, options, () => 0), 0);
  });
});

describe('sleep', () => {
  it('rejects at once when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await assert.rejects(sleep(10_000, controller.signal), /stop/);
    assert.ok(Date.now() - started < 1000);
  });
});
