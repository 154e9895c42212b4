// The recent skipped ratio of a router-log source (collector/pipeline/skipped-window.js): a burst
// makes it degraded, clean data afterwards makes it ok again, and a tiny increment that only
// re-reads the boundary neither clears nor dominates it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPECTED_SKIPS } from '../../collector/pipeline/ingest.js';
import { createSkippedWindow } from '../../collector/pipeline/skipped-window.js';

/** An increment's result. @param {number} records @param {Record<string, number>} [skipped] */
const increment = (records, skipped = {}) => ({
  records,
  inserted: records,
  skipped: new Map(Object.entries(skipped)),
  examples: new Map(Object.keys(skipped).map((reason) => [reason, { id: `doc-${reason}`, lookedIn: ['message'] }])),
});

describe('the skipped window of a router-log source', () => {
  it('a burst makes it degraded; 1000 clean records afterwards make it ok again', () => {
    const recent = createSkippedWindow({ maxRatio: 0.01, windowRecords: 1000 });
    assert.equal(recent.ratio(), 0, 'nothing read yet');
    recent.add(increment(2000));
    assert.equal(recent.verdict(), undefined);
    recent.add(increment(50, { truncated: 40, bad_status: 10 }));
    // The window: this increment (100) and the one before (2000), the oldest needed to reach 1000.
    assert.equal(recent.ratio(), 50 / 2100);
    assert.deepEqual(recent.verdict(), {
      ratio: 50 / 2100,
      skipped: 50,
      reason: 'truncated',
      count: 40,
      example: { id: 'doc-truncated', lookedIn: ['message'] },
    });
    recent.add(increment(600));
    assert.equal(recent.ratio(), 50 / 2700, 'the newer 600 + 100 need the 2000 before them to reach 1000');
    recent.add(increment(350));
    assert.equal(recent.ratio(), 50 / 1050, 'the burst is still among the last 1000 records');
    recent.add(increment(100));
    assert.equal(recent.ratio(), 0, 'the newer increments hold 1050 >= 1000 without it: gone');
    assert.equal(recent.verdict(), undefined);
  });

  it('a total breakage shows at once; an increment with nothing in it changes nothing', () => {
    const recent = createSkippedWindow({ maxRatio: 0.01, windowRecords: 1000 });
    recent.add(increment(100_000));
    recent.add(increment(0, { unknown_format: 1500 }));
    assert.equal(recent.ratio(), 1);
    recent.add(increment(0));
    assert.equal(recent.ratio(), 1, 'an empty increment is no evidence');
    recent.add(increment(1));
    assert.equal(recent.ratio(), 1500 / 1501, 'a re-read boundary document does not clear it');
  });

  it('skips that are expected (lines of other sources) count for nothing', () => {
    const recent = createSkippedWindow({ maxRatio: 0.01, expected: EXPECTED_SKIPS.lines, windowRecords: 10 });
    recent.add(increment(10, { not_rtr: 500, not_gorouter: 3, truncated: 1 }));
    assert.equal(recent.ratio(), 1 / 11);
    recent.add(increment(0, { not_rtr: 5000 }));
    assert.equal(recent.ratio(), 1 / 11);
    recent.add(increment(10));
    assert.equal(recent.ratio(), 0);
  });
});
