// The one loop of `collect`'s jobs: scheduled jobs run on their cron through one function, push jobs
// are opened; stop ends the schedules, close stops the push jobs and then closes every job; a push
// job that cannot open leaves nothing running.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { createJob } from '../../collector/pipeline/job.js';
import { startJobs } from '../../collector/pipeline/run-jobs.js';

const log = pino({ level: 'silent' });

/** @param {string[]} events @param {string} name */
function scheduledJob(events, name) {
  const { self } = createPrometheusSink({ collectDefaultMetrics: false });
  const run = createJob({
    name,
    metrics: self,
    log,
    work: async () => {
      events.push(`run ${name}`);
      return { records: 0 };
    },
  });
  return { name, schedule: '* * * * * *', run, close: async () => void events.push(`close ${name}`) };
}

/** @param {string[]} events @param {string} name @param {boolean} [fails] */
function pushJob(events, name, fails = false) {
  return {
    name,
    trigger: /** @type {const} */ ('push'),
    start: async () => {
      if (fails) throw new Error(`${name} cannot listen`);
      events.push(`start ${name}`);
      return { stop: async () => void events.push(`stop ${name}`) };
    },
    close: async () => void events.push(`close ${name}`),
  };
}

describe('the jobs loop', () => {
  it('runs scheduled jobs, opens push jobs, and on stop closes push jobs first, then every job', async () => {
    /** @type {string[]} */
    const events = [];
    const jobs = [scheduledJob(events, 'poll'), pushJob(events, 'drain')];
    const running = await startJobs(jobs);
    assert.ok(running.startedOf(jobs[1]), 'what the push job opened');
    assert.ok(running.intervalOf(jobs[0]) > 0);
    const until = Date.now() + 5000;
    while (!events.includes('run poll') && Date.now() < until) await sleep(50);
    await running.stopSchedules();
    const runs = events.filter((e) => e === 'run poll').length;
    assert.ok(runs >= 1, events.join(', '));
    await running.close(Date.now() + 1000);
    assert.deepEqual(events.slice(-3), ['stop drain', 'close poll', 'close drain']);
    await sleep(1200);
    assert.equal(events.filter((e) => e === 'run poll').length, runs, 'no run after stop');
  });

  it('stops what it started when a push job cannot open', async () => {
    /** @type {string[]} */
    const events = [];
    const jobs = [scheduledJob(events, 'poll'), pushJob(events, 'drain'), pushJob(events, 'tcp', true)];
    await assert.rejects(startJobs(jobs), /tcp cannot listen/);
    assert.deepEqual(events, ['start drain', 'stop drain']);
    await sleep(1200);
    assert.ok(!events.includes('run poll'), 'the schedule was stopped');
  });
});
