// Log-bucketed histograms of latencies with a bounded relative error (as DDSketch's buckets): bucket
// k holds the values in (γ^(k-1), γ^k], so any value read back inside its bucket is within γ − 1
// of the true one. The database fills them (exporters/postgres/queries/compare.js) with the same
// γ, so a run of a million requests arrives as a few thousand counts.

import { LATENCY_BUCKET_GAMMA, LATENCY_BUCKET_MIN_MS } from '../../core/tunables.js';

/** Ratio of a bucket's upper bound to its lower one. */
export const GAMMA = LATENCY_BUCKET_GAMMA;
/** Largest relative error of a value read back from its bucket. */
export const RELATIVE_ERROR = GAMMA - 1;
export const LN_GAMMA = Math.log(GAMMA);
/** Times below this (ms) share its bucket: a clock's resolution, not a latency. */
export const MIN_MS = LATENCY_BUCKET_MIN_MS;

/** @param {number} ms @returns {number} the bucket index */
export const bucketOf = (ms) => Math.ceil(Math.log(Math.max(ms, MIN_MS)) / LN_GAMMA);

/** @param {number} bucket @returns {number} the bucket's upper bound, ms */
export const upperOf = (bucket) => GAMMA ** bucket;

/**
 * A dense histogram over buckets [offset, offset + counts.length).
 * @typedef {{ offset: number, counts: Float64Array }} Dense
 */

/**
 * An empty dense histogram wide enough for these sparse ones.
 * @param {Array<Array<[number, number]>>} sparse lists of [bucket, count]
 * @returns {Dense}
 */
export function denseFor(sparse) {
  let low = Infinity;
  let high = -Infinity;
  for (const list of sparse) {
    for (const [bucket] of list) {
      if (bucket < low) low = bucket;
      if (bucket > high) high = bucket;
    }
  }
  if (low === Infinity) return { offset: 0, counts: new Float64Array(0) };
  return { offset: low, counts: new Float64Array(high - low + 1) };
}

/** Adds `weight` times a sparse histogram. @param {Dense} dense @param {Array<[number, number]>} list */
export function addTo(dense, list, weight = 1) {
  for (const [bucket, count] of list) dense.counts[bucket - dense.offset] += count * weight;
}

/**
 * Quantiles as percentile_cont defines them (linear interpolation between the values at ranks
 * floor and ceil of q × (n − 1)), each value read inside its bucket, the bucket's values spread
 * evenly on the log scale: within RELATIVE_ERROR of the exact percentile_cont. Spread rather
 * than one value per bucket, a quantile moves smoothly with the counts, so a bootstrap of it sees
 * variation smaller than a bucket.
 * @param {Dense} dense @param {number[]} fractions ascending, 0..1
 * @returns {Array<number | null>}
 */
export function quantiles(dense, fractions) {
  let total = 0;
  for (const c of dense.counts) total += c;
  if (total <= 0) return fractions.map(() => null);
  const valueAtRank = rankReader(dense);
  return fractions.map((q) => {
    const rank = q * (total - 1);
    const lower = Math.floor(rank);
    const low = valueAtRank(lower);
    return low + (valueAtRank(Math.ceil(rank)) - low) * (rank - lower);
  });
}

/**
 * The value of the element at a 0-based rank; ranks asked in ascending order walk the buckets once.
 * @param {Dense} dense
 */
function rankReader(dense) {
  let index = 0;
  let below = 0;
  return (/** @type {number} */ rank) => {
    while (index < dense.counts.length - 1 && below + dense.counts[index] <= rank) below += dense.counts[index++];
    const count = dense.counts[index];
    const within = count > 0 ? Math.min(1, (rank - below + 0.5) / count) : 1;
    return GAMMA ** (dense.offset + index - 1 + within);
  };
}
