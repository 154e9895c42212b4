import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration, parseTime } from '../../core/durations.js';

describe('parseDuration', () => {
  for (const [text, ms] of /** @type {const} */ ([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    [' 45s ', 45_000],
  ])) {
    it(`reads ${JSON.stringify(text)} as ${ms} ms`, () => assert.equal(parseDuration(text), ms));
  }
  for (const text of ['30', 's', '-5s', '5 s', '1w', '']) {
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(parseDuration(text), undefined));
  }
});

describe('parseTime', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  it('reads now and now-<duration> against the given clock', () => {
    assert.equal(parseTime('now', now), '2026-11-22T10:00:00.000Z');
    assert.equal(parseTime('now-15m', now), '2026-11-22T09:45:00.000Z');
    assert.equal(parseTime('now-2d', now), '2026-11-20T10:00:00.000Z');
    assert.equal(parseTime('now-500ms', now), '2026-11-22T09:59:59.500Z');
  });
  it('brings a time with an offset to UTC', () => {
    assert.equal(parseTime('2026-11-22T11:30:00+01:00', now), '2026-11-22T10:30:00.000Z');
    assert.equal(parseTime('2026-11-22T10:00Z', now), '2026-11-22T10:00:00.000Z');
    assert.equal(parseTime('2026-11-22T10:00:00.123456Z', now), '2026-11-22T10:00:00.123Z');
  });
  it('refuses a time without a zone, and anything else', () => {
    for (const text of ['2026-11-22T10:00:00', '2026-11-22', 'yesterday', 'now-', 'now-x', 'now+5m']) {
      assert.equal(parseTime(text, now), undefined, text);
    }
  });
});
