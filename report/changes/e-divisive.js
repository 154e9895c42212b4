// E-divisive means (Matteson & James 2014) with Hunter's t-test instead of permutations, as Apache
// Otava 0.8.0 computes it (otava/change_point_divisive/calculator.py, detector.py and the
// TTestSignificanceTester of otava/analysis.py), in the same order of floating-point operations,
// so that ties and near-ties fall the same way.
import { npMean, npStd, tTestPValue } from './numeric.js';

/**
 * @typedef {object} Stats the t-test of the runs before a point against the runs from it on
 * @property {number} meanBefore @property {number} meanAfter
 * @property {number} stdBefore @property {number} stdAfter population standard deviations
 * @property {number} pValue two-sided
 * @typedef {{ index: number, qhat: number, stats: Stats }} ChangePoint index: first value after the change
 * @typedef {{ start: number, stop: number }} Interval values[start, stop)
 */

/**
 * The t-test of two segments, as Otava's TTestSignificanceTester.compare.
 * @param {number[]} left @param {number[]} right @returns {Stats}
 */
export function compareSegments(left, right) {
  const meanBefore = npMean(left);
  const meanAfter = npMean(right);
  const stdBefore = left.length >= 2 ? npStd(left) : 0;
  const stdAfter = right.length >= 2 ? npStd(right) : 0;
  const pValue =
    left.length + right.length > 2
      ? tTestPValue(meanBefore, stdBefore, left.length, meanAfter, stdAfter, right.length)
      : 1.0;
  return { meanBefore, meanAfter, stdBefore, stdAfter, pValue };
}

/**
 * The segments between sorted change points over `length` values, empty ones left out.
 * @param {{ index: number }[]} points @param {number} length @returns {Interval[]}
 */
export function intervals(points, length) {
  const bounds = [0, ...points.map((p) => p.index), length];
  return bounds.slice(1).flatMap((stop, i) => (bounds[i] === stop ? [] : [{ start: bounds[i], stop }]));
}

/**
 * The t-test at `index`: against the interval that ends there and the next one (a point already
 * found), or splitting the interval it falls inside (a candidate).
 * @param {number} index @param {number[]} values @param {Interval[]} segments @returns {Stats}
 */
export function statsAt(index, values, segments) {
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    if (s.stop === index)
      return compareSegments(values.slice(s.start, s.stop), values.slice(index, segments[i + 1].stop));
    if (s.start < index && index < s.stop)
      return compareSegments(values.slice(s.start, index), values.slice(index, s.stop));
  }
  throw new Error(`no segment holds index ${index}`);
}

/**
 * Otava's PairDistanceCalculator: the energy divergence Q(τ, κ) of values[start, τ) against
 * values[τ, κ) for every start < τ < κ <= end, from cumulative sums of pairwise distances.
 * @param {number[]} x
 */
function pairDistances(x) {
  const n = x.length;
  const d = x.map((a) => x.map((b) => Math.abs(a - b)));
  // V[b] = Σ_{a <= b} d[a][b + 1]; H[a][b] = Σ_{a <= c <= b} d[a][c + 1] (upper triangle, k = 1).
  const v = new Float64Array(Math.max(n - 1, 0));
  const h = Array.from({ length: n - 1 }, () => new Float64Array(n - 1));
  for (let b = 0; b < n - 1; b++) for (let a = 0; a <= b; a++) v[b] += d[a][b + 1];
  for (let a = 0; a < n - 1; a++) {
    let sum = 0;
    for (let b = a; b < n - 1; b++) h[a][b] = sum += d[a][b + 1];
  }
  return { d, v, h };
}

/**
 * The best split of values[start, end): the τ of the largest Q (numpy's argmax: the first of
 * equal ones, row by row), as get_candidate_change_point.
 * @param {{ d: number[][], v: Float64Array, h: Float64Array[] }} pd @param {Interval} interval
 * @returns {{ index: number, qhat: number }}
 */
function candidateIn(pd, { start, stop: end }) {
  const m = end - 1 - start;
  const cumV = new Float64Array(m);
  for (let k = 0, sum = 0; k < m; k++) {
    let before = 0;
    for (let a = 0; a < start; a++) before += pd.d[a][start + 1 + k];
    cumV[k] = sum += pd.v[start + k] - before;
  }
  const hh = (/** @type {number} */ i, /** @type {number} */ j) => pd.h[start + i][start + j];
  // cumH[i][j] = Σ_{r <= i} H'[r][j]; below[i][j] = Σ_{i < t < m} H'[t][j], summed from the bottom.
  const cumH = Array.from({ length: m }, () => new Float64Array(m));
  const below = Array.from({ length: m }, () => new Float64Array(m));
  for (let j = 0; j < m; j++) {
    for (let i = 0, sum = 0; i < m; i++) cumH[i][j] = sum += hh(i, j);
    for (let i = m - 2, sum = 0; i >= 0; i--) below[i][j] = sum += hh(i + 1, j);
  }
  let best = { i: 0, q: -Infinity };
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let q = 0;
      if (j >= i) {
        const a = (2 / (j + 2)) * (cumH[i][j] - (i ? cumV[i - 1] : 0));
        const b = i >= 1 && j >= 1 ? ((2 * (j - i + 1)) / ((j + 2) * i)) * cumV[i - 1] : 0;
        const c = j > i && i < m - 1 ? ((2 * (i + 1)) / ((j + 2) * (j - i))) * below[i][j] : 0;
        q = a - b - c;
      }
      if (q > best.q || Number.isNaN(q)) best = { i, q };
      if (Number.isNaN(q)) return { index: best.i + 1 + start, qhat: q };
    }
  }
  return { index: best.i + 1 + start, qhat: best.q };
}

/**
 * Otava's ChangePointDetector with the t-test: split the segment of the largest Q while its split
 * is significant (p <= maxPValue). Indexes are into `values`.
 * @param {number[]} values @param {number} maxPValue @returns {ChangePoint[]}
 */
export function divisiveChangePoints(values, maxPValue) {
  const pd = pairDistances(values);
  /** @type {ChangePoint[]} */
  const points = [];
  for (;;) {
    const segments = intervals(points, values.length);
    /** @type {{ index: number, qhat: number } | undefined} */
    let candidate;
    for (const s of segments) {
      if (s.stop - s.start <= 1) continue;
      const c = candidateIn(pd, s);
      // Python's max(): the first of equal ones.
      if (!candidate || c.qhat > candidate.qhat) candidate = c;
    }
    if (!candidate) break;
    const stats = statsAt(candidate.index, values, segments);
    if (!(stats.pValue <= maxPValue)) break;
    points.push({ ...candidate, stats });
    points.sort((p, q) => p.index - q.index);
  }
  return points;
}
