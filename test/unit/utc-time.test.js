import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { wholeSecondsMs } from '../../core/utc-time.js';

const two = (/** @type {number} */ n) => String(n).padStart(2, '0');

describe('wholeSecondsMs (fast-check, against Date.UTC and a round trip through toISOString)', () => {
  it('reads the date and time that exist, and no other', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 1000, max: 9999 }),
          month: fc.integer({ min: 0, max: 13 }),
          day: fc.integer({ min: 0, max: 32 }),
          hour: fc.integer({ min: 0, max: 25 }),
          minute: fc.integer({ min: 0, max: 61 }),
          second: fc.integer({ min: 0, max: 61 }),
          separator: fc.constantFrom('T', 't', ' '),
          rest: fc.constantFrom('', 'Z', '.123456Z', '.722911143Z', '+02:00'),
        }),
        ({ year, month, day, hour, minute, second, separator, rest }) => {
          const date = `${year}-${two(month)}-${two(day)}`;
          const time = `${two(hour)}:${two(minute)}:${two(second)}`;
          const ms = Date.UTC(year, month - 1, day, hour, minute, second);
          // Date.UTC carries a day 30 of February into March: only a round trip tells it exists.
          const exists = new Date(ms).toISOString().startsWith(`${date}T${time}`);
          const read = wholeSecondsMs(`${date}${separator}${time}${rest}`);
          if (exists) assert.equal(read, ms);
          else assert.ok(Number.isNaN(read), `${date} ${time} read as ${read}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is NaN for anything else in those 19 characters', () => {
    const good = '2026-02-28T23:59:59.5Z';
    assert.equal(wholeSecondsMs(good), Date.UTC(2026, 1, 28, 23, 59, 59));
    assert.equal(wholeSecondsMs('2024-02-29 00:00:00'), Date.UTC(2024, 1, 29));
    for (const bad of [
      '2026-02-29T00:00:00Z', // not a leap year
      '1900-02-29T00:00:00Z', // nor is 1900
      '2026-11-22T10:00:60Z', // a leap second: the caller's slow path
      '0999-01-01T00:00:00Z',
      '2026-11-22T10:00:0',
      '2026/11/22T10:00:00Z',
      '2026-11-22X10:00:00Z',
      '2026-11-22T10-00:00Z',
      '+26-11-22T10:00:00Z',
      '2026-1a-22T10:00:00Z',
      '2026-11-22T10:00:-1Z',
      '',
    ])
      assert.ok(Number.isNaN(wholeSecondsMs(bad)), bad);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 0xffff }), (at, code) => {
        const c = String.fromCharCode(code);
        if (c >= '0' && c <= '9') return;
        const text = `${good.slice(0, at)}${c}${good.slice(at + 1)}`;
        if (text === good || (at === 10 && (c === 't' || c === ' '))) return;
        assert.ok(Number.isNaN(wholeSecondsMs(text)), text);
      }),
    );
  });
});
