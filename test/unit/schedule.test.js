// The scheduler never runs two polls of one job at once, with or without an afterPoll hook: a
// poll still running when the next is due makes that one skipped and counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { schedule } from '../../collector/pipeline/schedule.js';

/** A job whose polls take `pollMs`, counting how many ran at once. @param {number} pollMs */
function slowJob(pollMs) {
  const seen = { runs: 0, running: 0, mostAtOnce: 0, skipped: 0 };
  const job = {
    name: 'slow',
    state: /** @type {any} */ ({ skipped: 0 }),
    metrics: /** @type {any} */ ({ skipped: { inc: () => (seen.skipped += 1) } }),
    log: /** @type {any} */ ({ warn() {} }),
    async runOnce() {
      seen.runs += 1;
      seen.running += 1;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
      await sleep(pollMs);
      seen.running -= 1;
      return seen.runs;
    },
  };
  return { job, seen };
}

for (const withHook of [false, true]) {
  const hook = withHook ? 'with' : 'without';
  test(`one poll at a time on a 1 s schedule when polls take 2.5 s (${hook} afterPoll)`, async () => {
    const { job, seen } = slowJob(2500);
    /** @type {unknown[]} */
    const outcomes = [];
    const task = schedule(job, '* * * * * *', withHook ? { afterPoll: (o) => outcomes.push(o) } : {});
    await sleep(5500);
    await task.stop();
    assert.equal(seen.mostAtOnce, 1);
    assert.ok(seen.runs >= 1 && seen.runs <= 2, `${seen.runs} polls in 5.5 s`);
    assert.ok(seen.skipped >= 2, `${seen.skipped} ticks skipped`);
    assert.equal(job.state.skipped, seen.skipped);
    if (withHook) assert.equal(outcomes.length, seen.runs);
  });
}
