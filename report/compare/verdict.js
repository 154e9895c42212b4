// The change of a figure from baseline to candidate with its 95 % interval, and the verdict as
// Criterion.rs decides it against a noise threshold T: `regressed` only when the whole interval
// lies beyond T in the bad direction, `improved` beyond T in the good one, `unchanged` inside ±T,
// else `inconclusive`. Relative changes are computed on the log of the ratio (delta method, Welch–
// Satterthwaite degrees of freedom), so the interval of candidate / baseline is never below −100 %.
import { studentT } from '../statistics.js';

/**
 * @typedef {import('./sides.js').SideEstimate} SideEstimate
 * @typedef {'regressed' | 'improved' | 'unchanged' | 'inconclusive'} Verdict
 * @typedef {object} Change
 * @property {number} change relative change (0.05 = +5 %) or difference
 * @property {[number, number]} interval 95 %
 * @property {number} estimate on the test's scale (log ratio or difference)
 * @property {number} se standard error on that scale
 * @property {number} df
 */

export const LEVEL = 0.95;

/**
 * @param {SideEstimate} baseline @param {SideEstimate} candidate @param {'relative' | 'absolute'} kind
 * @returns {Change | null} null when the change cannot be estimated (a mean of 0, no variance on a side)
 */
export function changeOf(baseline, candidate, kind) {
  if (baseline.variance === null || candidate.variance === null) return null;
  let a;
  let b;
  let estimate;
  if (kind === 'relative') {
    if (!(baseline.value > 0 && candidate.value > 0)) return null;
    estimate = Math.log(candidate.value / baseline.value);
    a = candidate.variance / candidate.value ** 2;
    b = baseline.variance / baseline.value ** 2;
  } else {
    estimate = candidate.value - baseline.value;
    a = candidate.variance;
    b = baseline.variance;
  }
  const se = Math.sqrt(a + b);
  const df = welchDf(a, candidate.df, b, baseline.df);
  const half = se > 0 ? studentT(df, LEVEL) * se : 0;
  const back = kind === 'relative' ? (/** @type {number} */ x) => Math.exp(x) - 1 : (/** @type {number} */ x) => x;
  return { change: back(estimate), interval: [back(estimate - half), back(estimate + half)], estimate, se, df };
}

/** Welch–Satterthwaite. @param {number} a @param {number} dfA @param {number} b @param {number} dfB */
function welchDf(a, dfA, b, dfB) {
  const terms = (dfA > 0 ? (a * a) / dfA : 0) + (dfB > 0 ? (b * b) / dfB : 0);
  if (!(terms > 0)) return Math.max(1, dfA + dfB);
  return Math.max(1, (a + b) ** 2 / terms);
}

/**
 * @param {[number, number]} interval of the change @param {number} threshold @param {1 | -1} worse
 * @returns {Verdict}
 */
export function verdictOf(interval, threshold, worse) {
  const [low, high] = worse === 1 ? interval : [-interval[1], -interval[0]];
  if (low > threshold) return 'regressed';
  if (high < -threshold) return 'improved';
  if (low >= -threshold && high <= threshold) return 'unchanged';
  return 'inconclusive';
}

/**
 * One-sided p-values that the change lies beyond the threshold in the bad (`regress`) and in the
 * good (`improve`) direction, on the test's scale.
 * @param {Change} change @param {number} threshold @param {1 | -1} worse @param {'relative' | 'absolute'} kind
 */
export function pValues(change, threshold, worse, kind) {
  const up = kind === 'relative' ? Math.log(1 + threshold) : threshold;
  const down = kind === 'relative' ? Math.log(Math.max(1e-9, 1 - threshold)) : -threshold;
  const above = upperTail((change.estimate - up) / change.se, change.df);
  const below = upperTail((down - change.estimate) / change.se, change.df);
  return worse === 1 ? { regress: above, improve: below } : { regress: below, improve: above };
}

/**
 * P(T > x) for Student's t with `df` degrees of freedom, by bisection on the quantile function.
 * @param {number} x @param {number} df
 */
export function upperTail(x, df) {
  if (!Number.isFinite(x)) return x > 0 ? 0 : 1;
  if (x === 0) return 0.5;
  let low = 0;
  let high = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (studentT(df, mid) < Math.abs(x)) low = mid;
    else high = mid;
  }
  const tail = (1 - (low + high) / 2) / 2;
  return x > 0 ? tail : 1 - tail;
}

/**
 * Holm–Bonferroni at one-sided α over a family of p-values: the indices rejected.
 * @param {number[]} ps @param {number} [alpha] one-sided; 0.025 is the 95 % interval's bound with one member
 * @returns {Set<number>}
 */
export function holmRejected(ps, alpha = (1 - LEVEL) / 2) {
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const rejected = new Set();
  for (let step = 0; step < order.length; step++) {
    if (order[step].p > alpha / (order.length - step)) break;
    rejected.add(order[step].i);
  }
  return rejected;
}

/**
 * How many more rounds per side would likely settle an inconclusive figure: the interval shrinks
 * as 1 / sqrt(rounds), so it must shrink to the distance from the estimate to the nearest edge
 * of ±T. null when the estimate sits on an edge.
 * @param {Change} change @param {number} threshold @param {'relative' | 'absolute'} kind @param {number} rounds
 */
export function moreRounds(change, threshold, kind, rounds) {
  const edges =
    kind === 'relative' ? [Math.log(1 + threshold), Math.log(Math.max(1e-9, 1 - threshold))] : [threshold, -threshold];
  const distance = Math.min(...edges.map((e) => Math.abs(change.estimate - e)));
  const half = change.interval ? studentT(change.df, LEVEL) * change.se : 0;
  if (!(distance > 0) || !(half > 0)) return null;
  const needed = Math.ceil(Math.max(1, rounds) * (half / distance) ** 2);
  return Math.max(1, needed - Math.max(1, rounds));
}
