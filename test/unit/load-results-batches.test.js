// Reading a long delimited file: its records come in batches of a chunk each and its times through a
// cache of the last second; the requests, their times and each skip's line number stay what they are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoMicros } from '../../collector/sources/load-results/records.js';
import { readAll } from '../support/load-results.js';

const HEADER = 'timeStamp,elapsed,label,responseCode,responseMessage,success,failureMessage,URL';
const START = Date.parse('2026-11-25T14:51:58Z');

/** The RFC 3339 form with microseconds (the fraction of a ms rounded), computed apart: from whole microseconds. */
function micros(/** @type {number} */ ms) {
  const us = Math.floor(ms) * 1000 + Math.round((ms - Math.floor(ms)) * 1000);
  const second = Math.floor(us / 1e6);
  const date = new Date(second * 1000).toISOString().slice(0, 19);
  return `${date}.${String(us - second * 1e6).padStart(6, '0')}Z`;
}

describe('a long delimited file', () => {
  it('keeps every request, in order, and each skip with its line across chunks and pages', async () => {
    /** @type {string[]} */
    const lines = [HEADER];
    /** @type {number[]} */
    const expected = [];
    /** @type {number[]} */
    const shortAt = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 701 === 50) {
        lines.push('not,a,row');
        shortAt.push(lines.length);
      } else if (i % 997 === 3) lines.push('');
      else if (i % 401 === 9) {
        lines.push(`${START + i},${i % 40},"GET /q\n${i}",200,OK,true,,http://h/${i}`);
        expected.push(i);
      } else {
        lines.push(`${START + i},${i % 40},GET /${i},200,OK,true,,http://h/${i}`);
        expected.push(i);
      }
    }
    const read = await readAll(lines.join('\n'), { pageSize: 128 }, 997);
    assert.deepEqual(
      read.records.map((r) => r.startedAt),
      expected.map((i) => micros(START + i)),
    );
    assert.deepEqual(
      read.records.map((r) => r.url),
      expected.map((i) => `http://h/${i}`),
    );
    assert.deepEqual([...read.skipped], [['short_row', shortAt.length]]);
    // Line numbers count the newline inside the quoted label of each row before the first short one.
    assert.equal(read.examples.get('short_row'), `line ${shortAt[0] + 1}: not,a,row`);
  });

  it('writes times to the microsecond across seconds, backwards and with a carry', () => {
    const times = [START + 999.9996, START + 1000.0004, START - 0.0004, START + 5, START - 86_400_000.5, 0, -1.5];
    for (let i = 0; i < 2000; i++) times.push(START + ((i * 7919) % 5000) + (i % 3) * 0.123457);
    for (const ms of times) assert.equal(isoMicros(ms), micros(ms), String(ms));
  });
});
