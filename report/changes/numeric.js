// The arithmetic of Apache Otava's change points as numpy and scipy do it, so that the same series
// gives the same change points: numpy's pairwise summation (np.sum, np.mean, np.std) and scipy's
// two-sided Student t-test from two samples' means and standard deviations.
import betainc from '@stdlib/math-base-special-betainc';

/**
 * numpy's pairwise summation of values[from, from + n): sequential below 8 values, eight running
 * sums up to 128, halves above (numpy/_core/src/umath/loops_utils.h.src).
 * @param {ArrayLike<number>} values @param {number} [from] @param {number} [n]
 * @returns {number}
 */
export function pairwiseSum(values, from = 0, n = values.length - from) {
  if (n < 8) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[from + i];
    return sum;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => values[from + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += values[from + i + j];
    let sum = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) sum += values[from + i];
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(values, from, half) + pairwiseSum(values, from + half, n - half);
}

/** np.mean. @param {number[]} values */
export const npMean = (values) => pairwiseSum(values) / values.length;

/** np.std: the population standard deviation (n, not n - 1). @param {number[]} values */
export function npStd(values) {
  const mean = npMean(values);
  return Math.sqrt(pairwiseSum(values.map((v) => (v - mean) * (v - mean))) / values.length);
}

/**
 * scipy.stats.ttest_ind_from_stats(..., equal_var=True, alternative='two-sided'): the pooled
 * variance t-test, p = 2 sf(|t|) of Student t with n1 + n2 - 2 degrees of freedom.
 * @param {number} mean1 @param {number} std1 @param {number} n1
 * @param {number} mean2 @param {number} std2 @param {number} n2
 */
export function tTestPValue(mean1, std1, n1, mean2, std2, n2) {
  const v1 = n1 === 1 ? 0 : std1 * std1;
  const v2 = n2 === 1 ? 0 : std2 * std2;
  const df = n1 + n2 - 2.0;
  const pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df;
  const t = (mean1 - mean2) / Math.sqrt(pooled * (1.0 / n1 + 1.0 / n2));
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  // 2 sf(|t|) = I_{df / (df + t²)}(df / 2, 1 / 2), the regularized incomplete beta function.
  return betainc(df / (df + t * t), df / 2, 0.5);
}
