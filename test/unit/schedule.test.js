// The scheduler never runs two polls of one job at once, with or without an afterPoll hook: a
// poll still running when the next is due makes that one skipped and counted.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { schedule } from '../../collector/pipeline/schedule.js';

/** A job whose polls take `pollMs`, counting how many ran at once. @param {number} pollMs */
function slowJob(pollMs) {
  const seen = { runs: 0, running: 0, mostAtOnce: 0, skipped: 0 };
  const job = {
    name: 'slow',
    state: /** @type {any} */ ({ skipped: 0 }),
    metrics: /** @type {any} */ ({ skipped: { inc: () => (seen.skipped += 1) } }),
    log: /** @type {any} */ ({ warn() {}, debug() {}, error() {} }),
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

// What a collector with a 1 s schedule and slow polls prints: paasmon's JSON lines only, no
// `[NODE-CRON] [WARN] ...overlap...` beside them (node-cron's own logger goes through paasmon's).
test('node-cron prints nothing of its own: stdout and stderr hold only JSON log lines', async () => {
  const schedulePath = fileURLToPath(new URL('../../collector/pipeline/schedule.js', import.meta.url));
  const script = `
    import pino from 'pino';
    import { setTimeout as sleep } from 'node:timers/promises';
    import { schedule } from ${JSON.stringify(schedulePath)};
    const log = pino({ level: 'info' });
    const job = { name: 'slow', state: { skipped: 0 }, metrics: { skipped: { inc() {} } }, log,
      async runOnce() { await sleep(2500); } };
    const task = schedule(job, '* * * * * *');
    await sleep(4500);
    await task.stop();
  `;
  const { stdout, stderr } = await new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), timeout: 60_000 },
      (err, out, errOut) =>
        err ? reject(Object.assign(err, { stderr: errOut })) : resolve({ stdout: out, stderr: errOut }),
    ),
  );
  assert.doesNotMatch(stdout + stderr, /NODE-CRON/);
  assert.equal(stderr, '');
  const lines = stdout.split('\n').filter(Boolean);
  const messages = lines.map((line) => JSON.parse(line).msg);
  assert.ok(
    messages.includes('previous poll still running; this one skipped'),
    `paasmon logs the skipped poll itself:\n${stdout}`,
  );
});
