// Rosner's generalized extreme Studentized deviate test (Technometrics 25(2), 1983; NIST/SEMATECH
// e-Handbook 1.3.5.17.3), as MongoDB's signal-processing-algorithms flags outlying runs: up to
// `maxOutliers` values far from the others, found one at a time by their distance from the mean
// of those left, in standard deviations.
import { studentT } from '../statistics.js';

/**
 * The indices of the outliers among `values` (none below 3 values).
 * @param {number[]} values @param {{ maxOutliers?: number, alpha?: number }} [options]
 * @returns {number[]}
 */
export function gesdOutliers(values, options = {}) {
  const n = values.length;
  const alpha = options.alpha ?? 0.05;
  const maxOutliers = Math.min(options.maxOutliers ?? Math.floor((n - 1) / 2), n - 2);
  if (n < 3 || maxOutliers < 1) return [];
  const left = values.map((value, index) => ({ value, index }));
  /** @type {number[]} */
  const removed = [];
  let found = 0;
  for (let i = 1; i <= maxOutliers; i++) {
    const m = left.reduce((s, x) => s + x.value, 0) / left.length;
    const sd = Math.sqrt(left.reduce((s, x) => s + (x.value - m) ** 2, 0) / (left.length - 1));
    if (!(sd > 0)) break;
    let worst = 0;
    for (let j = 1; j < left.length; j++) if (Math.abs(left[j].value - m) > Math.abs(left[worst].value - m)) worst = j;
    const statistic = Math.abs(left[worst].value - m) / sd;
    removed.push(left[worst].index);
    left.splice(worst, 1);
    if (statistic > gesdCritical(n, i, alpha)) found = i;
  }
  return removed.slice(0, found);
}

/**
 * λ_i = (n − i) t / sqrt((n − i − 1 + t²)(n − i + 1)), t the 1 − α / (2(n − i + 1)) quantile of
 * Student t with n − i − 1 degrees of freedom.
 * @param {number} n @param {number} i @param {number} alpha
 */
export function gesdCritical(n, i, alpha) {
  const t = studentT(n - i - 1, 1 - alpha / (n - i + 1));
  return ((n - i) * t) / Math.sqrt((n - i - 1 + t * t) * (n - i + 1));
}
