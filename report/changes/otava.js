// Change points of one series as Apache Otava 0.8.0 finds them (otava/analysis.py: split, merge,
// compute_change_points; Fleming et al., "Hunter", ICPE 2023), plus a minimum segment length
// (proposed in apache/otava#150) and a leave-one-out test, so that one outlier run is not a change.
// minSegment 1 is Otava.
import { divisiveChangePoints, intervals, statsAt } from './e-divisive.js';
import { tTestPValue } from './numeric.js';

/** @typedef {import('./e-divisive.js').ChangePoint} ChangePoint */

/**
 * @typedef {object} ChangeOptions
 * @property {number} [window] values analysed at once, in windows that start every window/2 (50)
 * @property {number} [maxPValue] largest p-value of a change point (0.001)
 * @property {number} [minMagnitude] a change point's relative change must exceed this (0)
 * @property {number} [minSegment] fewest values between two change points, or before the first
 *   or after the last; above 1, a change must also hold with any one of them left out (2; 1 as Otava)
 */
export const DEFAULT_CHANGE_OPTIONS = Object.freeze({ window: 50, maxPValue: 0.001, minMagnitude: 0, minSegment: 2 });

/** Otava's magnitude: max(|m2/m1 - 1|, |m1/m2 - 1|), a zero mean counting as no change. */
export function magnitude(/** @type {import('./e-divisive.js').Stats} */ s) {
  const forward = s.meanBefore === 0 ? 0 : s.meanAfter / s.meanBefore - 1.0;
  const backward = s.meanAfter === 0 ? 0 : s.meanBefore / s.meanAfter - 1.0;
  return Math.max(Math.abs(forward), Math.abs(backward));
}

/**
 * The split step: E-divisive in windows of `window` values starting every window/2 (or at the
 * last point found), each point tested against its neighbours at the relaxed `pValue`.
 * @param {number[]} values @param {number} window @param {number} pValue @returns {ChangePoint[]}
 */
export function split(values, window, pValue) {
  const step = Math.trunc(window / 2);
  /** @type {ChangePoint[]} */
  const points = [];
  let start = 0;
  while (start < values.length) {
    const end = Math.min(start + window, values.length);
    const found = divisiveChangePoints(values.slice(start, end), pValue).map((p) => ({ ...p, index: p.index + start }));
    start = Math.max(found.length ? found[found.length - 1].index : 0, start + step);
    for (const p of found) if (!points.some((q) => q.index === p.index)) points.push(p);
  }
  points.sort((p, q) => p.index - q.index);
  const segments = intervals(points, values.length);
  return points.map((p) => ({ ...p, stats: statsAt(p.index, values, segments) }));
}

/** Python's max(items, key): the first of equal ones; a NaN key stays or is passed over. */
function first(/** @type {ChangePoint[]} */ points, /** @type {(p: ChangePoint) => number} */ key, sign = 1) {
  let best = points[0];
  for (const p of points.slice(1)) if (sign * key(p) > sign * key(best)) best = p;
  return best;
}

/**
 * Drops `points[at]` and tests again the points whose segments changed: `neighbours` are offsets
 * from `at` after the removal.
 * @param {ChangePoint[]} points @param {number} at @param {number[]} neighbours @param {number[]} values
 */
function remove(points, at, neighbours, values) {
  points.splice(at, 1);
  const segments = intervals(points, values.length);
  for (const i of neighbours.map((k) => at + k))
    if (i >= 0 && i < points.length) points[i] = { ...points[i], stats: statsAt(points[i].index, values, segments) };
}

/** A segment's count, mean and sum of squared deviations. @param {number[]} xs */
function moments(xs) {
  const mean = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  return { n: xs.length, mean, m2: xs.reduce((sum, x) => sum + (x - mean) ** 2, 0) };
}

/**
 * The t-test's p-value of `side` without the value x against `other` (a segment of one value or
 * none cannot be tested: 1).
 * @param {{ n: number, mean: number, m2: number }} side @param {number} x
 * @param {{ n: number, mean: number, m2: number }} other
 */
function pWithout(side, x, other) {
  const n = side.n - 1;
  if (n < 1 || n + other.n <= 2) return 1;
  const mean = (side.n * side.mean - x) / n;
  const std = n >= 2 ? Math.sqrt(Math.max(0, side.m2 - (x - side.mean) * (x - mean)) / n) : 0;
  const otherStd = other.n >= 2 ? Math.sqrt(other.m2 / other.n) : 0;
  return tTestPValue(mean, std, n, other.mean, otherStd, other.n);
}

/**
 * Whether the point between values[from, at) and values[at, to) is still significant with any one
 * of those values left out: a change that one outlier run makes is not one.
 * @param {number[]} values @param {number} from @param {number} at @param {number} to @param {number} maxPValue
 */
function holdsWithoutAnyOne(values, from, at, to, maxPValue) {
  const left = values.slice(from, at);
  const right = values.slice(at, to);
  const l = moments(left);
  const r = moments(right);
  return left.every((x) => pWithout(l, x, r) <= maxPValue) && right.every((x) => pWithout(r, x, l) <= maxPValue);
}

/**
 * The merge step: while a point has p >= maxPValue (or, once none has, its magnitude is not above
 * minMagnitude), drop the worst one and test its neighbours again. Before that, with minSegment
 * above 1, a point goes (the one of largest p first) that has fewer than minSegment values on a
 * side, or that is not significant with one of the values on its sides left out.
 * @param {ChangePoint[]} weak @param {number[]} values @param {Required<ChangeOptions>} options
 */
export function merge(weak, values, { maxPValue, minMagnitude, minSegment }) {
  const points = [...weak];
  // A point's fragility depends only on its two segments: each is judged once.
  /** @type {Map<string, boolean>} */
  const holds = new Map();
  const robust = (/** @type {number} */ from, /** @type {number} */ at, /** @type {number} */ to) => {
    const key = `${from} ${at} ${to}`;
    if (!holds.has(key)) holds.set(key, holdsWithoutAnyOne(values, from, at, to, maxPValue));
    return holds.get(key);
  };
  while (points.length) {
    const bounds = [0, ...points.map((p) => p.index), values.length];
    const fragile = points.filter(
      (_, i) =>
        minSegment > 1 &&
        (Math.min(bounds[i + 1] - bounds[i], bounds[i + 2] - bounds[i + 1]) < minSegment ||
          !robust(bounds[i], bounds[i + 1], bounds[i + 2])),
    );
    if (fragile.length) {
      // Both neighbours of the point dropped are tested again.
      remove(points, points.indexOf(first(fragile, (p) => p.stats.pValue)), [-1, 0], values);
      continue;
    }
    let weakest = first(points, (p) => p.stats.pValue);
    if (weakest.stats.pValue < maxPValue) {
      weakest = first(points, magnitude_, -1);
      if (magnitude_(weakest) > minMagnitude) return points;
    }
    // As Otava 0.8.0: the points now at the removed one's place and after it, not the one before.
    remove(points, points.indexOf(weakest), [0, 1], values);
  }
  return points;
}

const magnitude_ = (/** @type {ChangePoint} */ p) => magnitude(p.stats);

/**
 * Otava's compute_change_points: weak points at 10 x maxPValue (2 x from 0.05, as is from 0.5),
 * then merged down to the points that meet maxPValue and minMagnitude.
 * @param {number[]} values @param {ChangeOptions} [options] @returns {ChangePoint[]}
 */
export function changePoints(values, options = {}) {
  const o = { ...DEFAULT_CHANGE_OPTIONS, ...options };
  if (!(o.window >= 2)) throw new Error(`window must be at least 2, got ${o.window}`);
  const p = o.maxPValue;
  const firstPass = p < 0.05 ? p * 10 : p < 0.5 ? p * 2 : p;
  const points = merge(split(values, o.window, firstPass), values, o);
  // Otava leaves the stats of a point before a dropped one as they were: each is tested again here.
  const segments = intervals(points, values.length);
  return points.map((q) => ({ ...q, stats: statsAt(q.index, values, segments) }));
}
