// A reading the Cloud Controller repeats between two of Diego's measurements is marked, not taken anew.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReadingMemory } from '../../collector/sources/cloud-controller/readings.js';
import { onInterval } from '../../sandbox/proc-usage.js';

/** @param {Partial<import('../../core/types.js').InstanceSample>} fields */
const sample = (fields = {}) => ({
  kind: /** @type {const} */ ('instance_sample'),
  ts: new Date(),
  appGuid: 'g1',
  appName: 'shop',
  processType: 'web',
  instanceIndex: 0,
  state: 'RUNNING',
  cpuPercent: 12.5,
  cpuEntitlementPercent: 25,
  memBytes: 1000,
  memQuotaBytes: 4000,
  diskBytes: 10,
  diskQuotaBytes: 40,
  uptimeSeconds: 5,
  ...fields,
});

describe('repeated Cloud Controller readings', () => {
  it("marks a poll that finds an instance's previous reading again, and only that one", () => {
    const memory = createReadingMemory();
    const polls = [
      [sample(), sample({ instanceIndex: 1, cpuPercent: 3 })],
      [sample({ uptimeSeconds: 6 }), sample({ instanceIndex: 1, cpuPercent: 4 })],
      [sample({ uptimeSeconds: 7 }), sample({ instanceIndex: 1, cpuPercent: 4 })],
      [sample({ cpuPercent: 13 }), sample({ instanceIndex: 1, cpuPercent: 4, state: 'CRASHED' })],
      [sample({ cpuPercent: 12.5 }), sample({ instanceIndex: 1, cpuPercent: 4, memBytes: 2000, state: 'CRASHED' })],
    ];
    const marks = polls.map((poll) => memory.mark(poll).map((s) => Boolean(s.repeated)));
    assert.deepEqual(marks, [
      [false, false],
      [true, false], // uptime is the Cloud Controller's clock, not a measurement
      [true, true],
      [false, false], // new CPU; a new state is news too
      [false, false], // back to an earlier value is a new reading
    ]);
  });

  it('keeps apps and process types apart, and never marks a sample without usage', () => {
    const memory = createReadingMemory();
    const none = { cpuPercent: null, cpuEntitlementPercent: null, memBytes: null, diskBytes: null };
    memory.mark([sample(), sample({ appGuid: 'g2' }), sample({ state: 'DOWN', instanceIndex: 2, ...none })]);
    const again = memory.mark([
      sample(),
      sample({ appGuid: 'g2' }),
      sample({ processType: 'worker' }),
      sample({ state: 'DOWN', instanceIndex: 2, ...none }),
    ]);
    assert.deepEqual(
      again.map((s) => Boolean(s.repeated)),
      [true, true, false, false],
    );
  });
});

describe('the sandbox measures on an interval when asked', () => {
  it('measures at the first ask of each interval and answers that reading until the next', () => {
    let now = 10_000;
    let measured = 0;
    const read = onInterval(
      () => ++measured,
      15_000,
      () => now,
    );
    const seen = [];
    for (const at of [10_000, 11_000, 14_999, 15_000, 29_000, 30_500, 31_000, 90_000]) {
      now = at;
      seen.push(read());
    }
    assert.deepEqual(seen, [1, 1, 1, 2, 2, 3, 3, 4]);
  });
});
