import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confidenceInterval, mean, percentile, stddevSample, studentT } from '../../report/statistics.js';

test('Student t two-sided 95 % quantiles match the printed table', () => {
  // Any statistics textbook's t table, column 0.975.
  const table = { 1: 12.706, 2: 4.303, 3: 3.182, 5: 2.571, 10: 2.228, 20: 2.086, 30: 2.042, 60: 2.0, 120: 1.98 };
  for (const [df, t] of Object.entries(table)) assert.equal(studentT(Number(df)).toFixed(3), t.toFixed(3), `df ${df}`);
  assert.equal(studentT(1e9).toFixed(3), '1.960');
});

test('mean, sample stddev, percentile with linear interpolation, confidence interval', () => {
  const values = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(mean(values), 5);
  assert.equal(stddevSample(values), Math.sqrt(32 / 7));
  assert.equal(percentile(values, 0.5), 4.5);
  assert.equal(percentile([10, 20], 0.95), 19.5);
  assert.equal(percentile([3, 1, 2], 0), 1);
  assert.equal(percentile([], 0.5), null);
  const ci = confidenceInterval([10, 12, 14]);
  // t(0.975, 2) = 4.302653, s = 2, n = 3.
  assert.ok(Math.abs(/** @type {number} */ (ci.halfWidth) - (4.302653 * 2) / Math.sqrt(3)) < 1e-5);
  assert.equal(confidenceInterval([10]).halfWidth, null);
});
