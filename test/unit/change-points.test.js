// Apache Otava's change point method as report/changes/ ports it: numpy's and scipy's arithmetic
// (known answers computed with numpy 2.2 and scipy 1.16), shifts found where they were placed,
// none in flat noise, and the minimum segment that keeps one outlier run from being a change.
// test/integration/changes-otava.test.js runs the real Otava on the same kind of series.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { npMean, npStd, pairwiseSum, tTestPValue } from '../../report/changes/numeric.js';
import { changePoints, magnitude } from '../../report/changes/otava.js';
import { series } from '../support/noisy-series.js';

const indexes = (/** @type {number[]} */ values, options = {}) => changePoints(values, options).map((p) => p.index);

test("sums, means and standard deviations as numpy's pairwise summation gives them", () => {
  const tenths = Array.from({ length: 200 }, (_, i) => 0.1 * (i + 1));
  assert.equal(pairwiseSum(tenths), 2010.0);
  assert.equal(
    tenths.reduce((s, v) => s + v, 0),
    2010.0000000000002,
    'a plain running sum differs: the test can tell them apart',
  );
  const harmonic = Array.from({ length: 37 }, (_, i) => 1 / (i + 1));
  assert.equal(npMean(harmonic), 0.1135563844276126);
  assert.equal(npStd(harmonic), 0.1756187547391911);
});

test("the two-sided pooled t-test's p-value as scipy's ttest_ind_from_stats", () => {
  assert.ok(Math.abs(tTestPValue(10, 1, 10, 11, 1.5, 12) - 0.08731282762939886) < 1e-12);
  assert.ok(Math.abs(tTestPValue(10, 0, 1, 11, 1.5, 3) - 0.6220355269907727) < 1e-12);
  assert.ok(Math.abs(tTestPValue(100, 2, 30, 100.5, 2, 30) - 0.336941953528073) < 1e-12);
  assert.equal(tTestPValue(10, 0, 3, 11, 0, 3), 0, 'no spread and different means: certain');
  assert.ok(Number.isNaN(tTestPValue(10, 0, 3, 10, 0, 3)), 'no spread and equal means: undefined, as scipy');
});

test('a shift placed in a noisy history is found at its first run, with its size', () => {
  const values = series(40, (i) => (i < 25 ? 100 : 110), 2);
  const [point, ...more] = changePoints(values);
  assert.equal(point.index, 25);
  assert.deepEqual(more, []);
  assert.ok(point.stats.pValue < 0.001);
  const before = values.slice(0, 25).reduce((s, v) => s + v, 0) / 25;
  const after = values.slice(25).reduce((s, v) => s + v, 0) / 15;
  assert.ok(Math.abs(point.stats.meanBefore - before) < 1e-9 && Math.abs(point.stats.meanAfter - after) < 1e-9);
  assert.ok(Math.abs(magnitude(point.stats) - Math.max(after / before - 1, before / after - 1)) < 1e-12);
});

test('a flat noisy history has no change point', () => {
  for (const seed of [1, 2, 3, 4, 5]) assert.deepEqual(indexes(series(80, () => 50, 3, seed)), [], `seed ${seed}`);
});

test('shifts further apart than a window are each found (windows of 50 every 25 runs)', () => {
  const values = series(160, (i) => (i < 40 ? 20 : i < 115 ? 26 : 22), 1, 7);
  assert.deepEqual(indexes(values), [40, 115]);
  assert.deepEqual(indexes(values, { window: 10 }), [40, 115], 'small windows find them too');
});

test('one outlier run is not a change unless segments of one run are allowed, as in Otava', () => {
  const spike = (/** @type {number} */ at, n = 30) => {
    const values = series(n, () => 100, 1, 3);
    values[at] = 160;
    return values;
  };
  // Otava flags a spike near the end of the history, never one in the middle (apache/otava#150).
  assert.deepEqual(indexes(spike(14), { minSegment: 1 }), []);
  assert.deepEqual(indexes(spike(26), { minSegment: 1 }), [26, 27]);
  assert.deepEqual(indexes(spike(27), { minSegment: 1 }), [27]);
  assert.deepEqual(indexes(spike(29), { minSegment: 1 }), [29]);
  for (const at of [14, 26, 27, 28, 29]) assert.deepEqual(indexes(spike(at)), [], `a spike at ${at}`);
  const confirmed = spike(29);
  confirmed.push(101 + 60);
  assert.deepEqual(indexes(confirmed), [29], 'a second run at the new level makes it a change');
  const shift = series(30, (i) => (i < 27 ? 100 : 106), 1, 3);
  assert.deepEqual(indexes(shift), [27], 'three runs at a new level are a change');
});

test('the magnitude and p-value limits drop the changes below them', () => {
  const values = series(60, (i) => (i < 30 ? 100 : 104), 1, 11);
  assert.deepEqual(indexes(values), [30]);
  assert.deepEqual(indexes(values, { minMagnitude: 0.05 }), [], 'a 4 % change is not above 5 %');
  const faint = series(60, (i) => (i < 30 ? 100 : 101), 1.5, 5);
  const strict = indexes(faint, { maxPValue: 1e-9 });
  assert.deepEqual(strict, []);
});
