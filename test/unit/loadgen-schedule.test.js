// The open model's due times against the ramp's definition: N(t) requests are due by t, and request
// i is due when N(t) = i. The expected times are found here by bisection on N, not from the
// closed form the schedule uses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Schedule } from '../../loadgen/schedule.js';

/**
 * Requests due by t ms: R t^2 / (2d) during a ramp of d ms, R d / 2 + R (t - d) after (R per second).
 * @param {number} rate @param {number} rampMs @param {number} t
 */
const dueBy = (rate, rampMs, t) =>
  t <= rampMs ? (rate / 1000) * ((t * t) / (2 * rampMs)) : (rate / 1000) * (rampMs / 2 + (t - rampMs));

/** The t with dueBy(t) = i, by bisection. @param {number} rate @param {number} rampMs @param {number} i */
function dueTime(rate, rampMs, i) {
  let low = 0;
  let high = 1;
  while (dueBy(rate, rampMs, high) < i) high *= 2;
  for (let step = 0; step < 200; step++) {
    const mid = (low + high) / 2;
    if (dueBy(rate, rampMs, mid) < i) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

describe('open-model schedule', () => {
  it('without a ramp: request i is due at exactly i * (1000 / rate) ms, as before ramps', () => {
    for (const rate of [1, 3, 200, 25_000, 0.5]) {
      const schedule = new Schedule(rate, 0);
      for (const i of [0, 1, 2, 7, 1000, 123_457]) assert.equal(schedule.dueOffset(i), i * (1000 / rate));
    }
  });

  it('with a ramp: the due times of N(t) = i, during the ramp, at its end and after', () => {
    // 400/s over a 1 s ramp: 200 requests are due during it; request 200 is due exactly at its end.
    const cases = [
      { rate: 400, rampMs: 1000, at: [0, 1, 2, 50, 150, 199, 200, 201, 599, 600] },
      { rate: 25_000, rampMs: 1000, at: [0, 1, 12_499, 12_500, 12_501, 100_000] },
      // N(d) = 3 * 0.7 / 2 = 1.05 is not a whole number: requests 0 and 1 in the ramp, 2 after.
      { rate: 3, rampMs: 700, at: [0, 1, 2, 3, 10] },
    ];
    for (const { rate, rampMs, at } of cases) {
      const schedule = new Schedule(rate, rampMs);
      for (const i of at) {
        const expected = dueTime(rate, rampMs, i);
        assert.ok(
          Math.abs(schedule.dueOffset(i) - expected) < 1e-6,
          `rate ${rate}, ramp ${rampMs} ms, i ${i}: ${schedule.dueOffset(i)} ms, expected ${expected}`,
        );
      }
    }
    const schedule = new Schedule(400, 1000);
    assert.equal(schedule.dueOffset(200), 1000, 'the ramp ends with request R d / 2');
    assert.equal(schedule.dueOffset(50), 500, 'a quarter of the ramp requests by half its time');
    // Rising rate: each gap shorter than the last during the ramp, then 2.5 ms.
    const gaps = [1, 2, 3, 100, 199, 200, 201, 300].map((i) => schedule.dueOffset(i) - schedule.dueOffset(i - 1));
    for (let k = 1; k < 5; k++) assert.ok(gaps[k] < gaps[k - 1], `gaps shrink during the ramp: ${gaps}`);
    for (const gap of gaps.slice(6)) assert.ok(Math.abs(gap - 2.5) < 1e-9, `${gap} ms after the ramp`);
  });

  it('counts the requests due before a time, sent or not', () => {
    const ramp = new Schedule(400, 1000);
    assert.deepEqual(
      [0, 1, 500, 999.999, 1000, 1000.001, 1500, 2000].map((ms) => ramp.dueBefore(ms)),
      [0, 1, 50, 200, 200, 201, 400, 600],
    );
    const flat = new Schedule(400, 0);
    assert.deepEqual(
      [0, 0.001, 2.5, 2.501, 1000, 2000].map((ms) => flat.dueBefore(ms)),
      [0, 1, 1, 2, 400, 800],
    );
    // Against the definition: every i below the count is due before the time, the count itself is not.
    for (const ms of [13, 777, 1234.5]) {
      const n = ramp.dueBefore(ms);
      assert.ok(ramp.dueOffset(n - 1) < ms && ramp.dueOffset(n) >= ms, `${n} due before ${ms} ms`);
      assert.equal(n, Math.ceil(dueBy(400, 1000, ms)));
    }
  });
});
