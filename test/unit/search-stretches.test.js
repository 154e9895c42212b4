import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  STRETCH_BUCKETS,
  planStretches,
  stretchCounts,
  stretchQuery,
} from '../../collector/sources/router-logs/search-pages.js';

const FROM = '2026-11-21T00:00:00.000Z';
const TO = '2026-11-21T01:00:00.000Z';

/** @param {number} ms */
const iso = (ms) => new Date(ms).toISOString();

describe('stretchCounts', () => {
  it('asks for a date histogram of about STRETCH_BUCKETS buckets over the window', () => {
    assert.deepEqual(stretchCounts('@timestamp', { from: FROM, to: TO }), {
      date_histogram: { field: '@timestamp', fixed_interval: `${3600_000 / STRETCH_BUCKETS}ms`, min_doc_count: 1 },
    });
    // Never narrower than a millisecond; none for a window it cannot read.
    assert.equal(
      stretchCounts('t', { from: FROM, to: iso(Date.parse(FROM) + 10) })?.date_histogram.fixed_interval,
      '1ms',
    );
    assert.equal(stretchCounts('t', { from: 'yesterday', to: TO }), undefined);
    assert.equal(stretchCounts('t', { from: TO, to: FROM }), undefined);
  });
});

describe('planStretches', () => {
  const start = Date.parse(FROM);
  /** @param {number[]} counts one bucket per second */
  const buckets = (counts) => counts.map((n, i) => ({ key: start + i * 1000, doc_count: n }));

  it('cuts at bucket starts so that no stretch holds more than asked, end to end', () => {
    const counts = [300, 500, 200, 100, 900, 50, 50, 400];
    const stretches = planStretches(buckets(counts), 1000, TO);
    assert.deepEqual(stretches, [
      { from: undefined, to: start + 3000, end: iso(start + 3000) },
      { from: start + 3000, to: start + 5000, end: iso(start + 5000) },
      { from: start + 5000, to: undefined, end: TO },
    ]);
    // Independently: the documents of each stretch from the buckets it spans.
    const held = stretches.map((s) =>
      buckets(counts)
        .filter((b) => (s.from === undefined || b.key >= s.from) && (s.to === undefined || b.key < s.to))
        .reduce((a, b) => a + b.doc_count, 0),
    );
    assert.deepEqual(held, [1000, 1000, 500]);
    assert.equal(
      held.reduce((a, b) => a + b, 0),
      counts.reduce((a, b) => a + b, 0),
    );
  });

  it('gives a bucket that holds more than a stretch a stretch of its own', () => {
    const stretches = planStretches(buckets([10, 5000, 10]), 1000, TO);
    assert.deepEqual(
      stretches.map((s) => [s.from, s.to]),
      [
        [undefined, start + 1000],
        [start + 1000, start + 2000],
        [start + 2000, undefined],
      ],
    );
  });

  it('reads the whole window as one stretch without buckets or when it holds fewer than a stretch', () => {
    assert.deepEqual(planStretches(undefined, 1000, TO), [{ from: undefined, to: undefined, end: TO }]);
    assert.deepEqual(planStretches([], 1000, TO), [{ from: undefined, to: undefined, end: TO }]);
    assert.deepEqual(planStretches(buckets([400, 500]), 1000, TO), [{ from: undefined, to: undefined, end: TO }]);
  });
});

describe('stretchQuery', () => {
  const query = { bool: { filter: [{ match: { 'rtr.app': 'shop' } }] } };
  it('narrows the window’s query to the stretch in epoch milliseconds', () => {
    assert.deepEqual(stretchQuery(query, '@timestamp', { from: 1000, to: 2000, end: '' }), {
      bool: { filter: [query, { range: { '@timestamp': { format: 'epoch_millis', gte: 1000, lt: 2000 } } }] },
    });
    assert.deepEqual(stretchQuery(query, '@timestamp', { from: undefined, to: 2000, end: '' }), {
      bool: { filter: [query, { range: { '@timestamp': { format: 'epoch_millis', lt: 2000 } } }] },
    });
    assert.equal(stretchQuery(query, '@timestamp', { from: undefined, to: undefined, end: '' }), query);
  });
});
