import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pollLine } from '../../collector/commands/collect.js';

/** @param {string} appGuid @param {string} state */
const sample = (appGuid, state) => /** @type {any} */ ({ kind: 'instance_sample', appGuid, state });
const now = new Date('2026-11-22T10:00:05.123Z');

describe('collect: one line per poll on a terminal', () => {
  it('counts apps, instances and the running ones, with the time (UTC) and the duration', () => {
    const records = [sample('a', 'RUNNING'), sample('a', 'CRASHED'), sample('b', 'RUNNING')];
    assert.equal(
      pollLine({ records, complete: true, error: undefined, durationMs: 152.6 }, now),
      '10:00:05 UTC  poll: 2 apps, 3 instances (2 running), 153 ms',
    );
  });

  it('says when a poll failed, and what it kept', () => {
    const line = pollLine(
      { records: [sample('a', 'RUNNING')], complete: false, error: new Error('UAA refused'), durationMs: 40 },
      now,
    );
    assert.equal(line, '10:00:05 UTC  poll failed after 40 ms: UAA refused; kept: 1 app, 1 instances (1 running)');
  });
});
