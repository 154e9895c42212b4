// The statistics of `paasmon compare` against independent computations: histogram percentiles
// against exact percentile_cont, batch means against block means computed apart, the block
// bootstrap of a percentile against a reference bootstrap over the raw requests, Student t tails
// and Holm–Bonferroni against printed tables, GESD's critical values against NIST's example.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addTo, denseFor, quantiles, RELATIVE_ERROR } from '../../report/compare/histogram.js';
import { gesdCritical, gesdOutliers } from '../../report/compare/gesd.js';
import { seededRandom } from '../../report/compare/random.js';
import { percentileEstimates, ratioEstimate, sampleVariance } from '../../report/compare/rounds.js';
import { combineRounds } from '../../report/compare/sides.js';
import { changeOf, holmRejected, upperTail, verdictOf } from '../../report/compare/verdict.js';
import { percentile, studentT } from '../../report/statistics.js';
import { lcg, roundRequests, runData } from '../support/compare-data.js';

const requests = roundRequests({ seed: 3, requests: 12_800, windowS: 60 });
const data = runData({ run_id: 1, window_s: 60 }, requests, { blocks: 32 });

describe('compare statistics', () => {
  it('reads percentiles from merged histograms within RELATIVE_ERROR of percentile_cont', () => {
    const lists = data.blocks.map((b) => b.hist);
    const dense = denseFor(lists);
    for (const list of lists) addTo(dense, list);
    const fractions = [0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999];
    const fromHistogram = quantiles(dense, fractions);
    const e2e = requests.map((r) => r.e2e);
    fractions.forEach((q, i) => {
      const exact = /** @type {number} */ (percentile(e2e, q));
      const error = Math.abs(/** @type {number} */ (fromHistogram[i]) - exact) / exact;
      assert.ok(error <= RELATIVE_ERROR, `p${q * 100}: ${fromHistogram[i]} vs ${exact} (${error})`);
    });
  });

  it('gives a ratio and its batch-means variance as the block means computed apart', () => {
    const estimate = /** @type {NonNullable<ReturnType<typeof ratioEstimate>>} */ (
      ratioEstimate(
        data.blocks.map((b) => b.e2eSum),
        data.blocks.map((b) => b.n),
      )
    );
    const e2e = requests.map((r) => r.e2e);
    const overall = e2e.reduce((a, b) => a + b, 0) / e2e.length;
    assert.ok(Math.abs(estimate.value - overall) < 1e-9);
    // Equal blocks (12,800 requests over 32 blocks, 400 each): var(block means) / B.
    const means = Array.from({ length: 32 }, (_, b) => e2e.slice(b * 400, (b + 1) * 400)).map(
      (xs) => xs.reduce((a, v) => a + v, 0) / xs.length,
    );
    const expected = /** @type {number} */ (sampleVariance(means)) / 32;
    const variance = /** @type {number} */ (estimate.variance);
    assert.ok(Math.abs(variance - expected) / expected < 1e-9, `${variance} vs ${expected}`);
    // Autocorrelated requests: the naive variance (as if independent) is smaller.
    const naive = /** @type {number} */ (sampleVariance(e2e)) / e2e.length;
    assert.ok(variance > 1.5 * naive, `${variance} vs naive ${naive}`);
  });

  it('bootstraps a percentile over blocks as a reference bootstrap over the raw requests does', () => {
    const seed = 20261128;
    const ours = percentileEstimates(data.blocks, seededRandom(seed), 1000);
    const again = percentileEstimates(data.blocks, seededRandom(seed), 1000);
    assert.deepEqual(ours, again, 'the same seed, the same answer');
    // Reference: draw 32 blocks of raw requests with replacement (another generator), exact percentile_cont.
    const random = lcg(99);
    const groups = Array.from({ length: 32 }, (_, b) =>
      Float64Array.from(requests.slice(b * 400, (b + 1) * 400), (r) => r.e2e),
    );
    const fractions = /** @type {const} */ ([
      ['e2e_p50_ms', 0.5],
      ['e2e_p95_ms', 0.95],
      ['e2e_p99_ms', 0.99],
    ]);
    /** @type {number[][]} */
    const draws = fractions.map(() => []);
    for (let r = 0; r < 1000; r++) {
      const sample = new Float64Array(12_800);
      for (let b = 0; b < 32; b++) sample.set(groups[Math.floor(random() * 32)], b * 400);
      sample.sort();
      fractions.forEach(([, q], i) => draws[i].push(sortedPercentile(sample, q)));
    }
    for (const [i, [name]] of fractions.entries()) {
      const reference = Math.sqrt(/** @type {number} */ (sampleVariance(draws[i])));
      const estimate = /** @type {any} */ (ours[name]);
      const se = Math.sqrt(estimate.variance);
      assert.ok(Math.abs(se - reference) / reference < 0.15, `${name}: se ${se} vs reference ${reference}`);
    }
  });

  it('combines rounds by the larger of between-round and within-run variance', () => {
    const one = combineRounds([{ value: 10, variance: 0.04, df: 31 }]);
    assert.deepEqual(one, { value: 10, variance: 0.04, df: 31, rounds: 1 });
    const spread = /** @type {any} */ (combineRounds([10, 11, 12].map((value) => ({ value, variance: 0.01, df: 31 }))));
    assert.equal(spread.value, 11);
    assert.ok(Math.abs(spread.variance - 1 / 3) < 1e-12); // s² = 1, k = 3
    assert.equal(spread.df, 2);
    const tight = /** @type {any} */ (
      combineRounds([10, 10.01, 10.02].map((value) => ({ value, variance: 4, df: 31 })))
    );
    assert.ok(Math.abs(tight.variance - 4 / 3) < 1e-12); // mean within-run variance / k
    assert.equal(combineRounds([null, null]), null);
  });

  it('gives the change of a ratio on the log scale with Welch–Satterthwaite degrees of freedom', () => {
    const b = { value: 100, variance: 4, df: 4, rounds: 5 };
    const c = { value: 110, variance: 9, df: 4, rounds: 5 };
    const change = /** @type {NonNullable<ReturnType<typeof changeOf>>} */ (changeOf(b, c, 'relative'));
    const x = 9 / 110 ** 2;
    const y = 4 / 100 ** 2;
    const df = (x + y) ** 2 / ((x * x) / 4 + (y * y) / 4);
    const half = studentT(df) * Math.sqrt(x + y);
    assert.ok(Math.abs(change.change - 0.1) < 1e-12);
    assert.ok(Math.abs(change.interval[0] - (1.1 * Math.exp(-half) - 1)) < 1e-12);
    assert.ok(Math.abs(change.interval[1] - (1.1 * Math.exp(half) - 1)) < 1e-12);
    const points = /** @type {any} */ (changeOf({ ...b, value: 0.01 }, { ...c, value: 0.02 }, 'absolute'));
    assert.ok(Math.abs(points.change - 0.01) < 1e-12);
  });

  it('decides as Criterion does against the noise threshold', () => {
    assert.equal(verdictOf([0.06, 0.1], 0.05, 1), 'regressed');
    assert.equal(verdictOf([-0.1, -0.06], 0.05, 1), 'improved');
    assert.equal(verdictOf([-0.04, 0.049], 0.05, 1), 'unchanged');
    assert.equal(verdictOf([0.01, 0.08], 0.05, 1), 'inconclusive');
    // Throughput: lower is worse.
    assert.equal(verdictOf([-0.1, -0.06], 0.05, -1), 'regressed');
    assert.equal(verdictOf([0.06, 0.1], 0.05, -1), 'improved');
  });

  it('gives Student t tails of the printed table and rejects as Holm–Bonferroni does', () => {
    assert.ok(Math.abs(upperTail(2.228, 10) - 0.025) < 1e-4);
    assert.ok(Math.abs(upperTail(-1.812, 10) - 0.95) < 1e-4);
    assert.ok(Math.abs(upperTail(12.706, 1) - 0.025) < 1e-4);
    // α = 0.05: sorted 0.01 ≤ 0.05/4, 0.015 ≤ 0.05/3, 0.03 > 0.05/2 stops; 0.04 is not reached.
    assert.deepEqual([...holmRejected([0.04, 0.01, 0.03, 0.015], 0.05)].sort(), [1, 3]);
    assert.deepEqual([...holmRejected([0.02], 0.025)], [0]);
    assert.deepEqual([...holmRejected([0.02, 0.02], 0.025)], []);
  });

  it("finds GESD's outliers with NIST's critical values", () => {
    // NIST/SEMATECH e-Handbook 1.3.5.17.3, Rosner's 54 values: λ1..λ3 = 3.159, 3.151, 3.144.
    assert.equal(gesdCritical(54, 1, 0.05).toFixed(2), '3.16');
    assert.equal(gesdCritical(54, 2, 0.05).toFixed(2), '3.15');
    assert.equal(gesdCritical(54, 3, 0.05).toFixed(2), '3.14');
    assert.deepEqual(gesdOutliers([100, 101, 99, 100.5, 99.5, 100.2, 140]), [6]);
    assert.deepEqual(gesdOutliers([100, 101, 99, 100.5, 99.5, 100.2, 100.8]), []);
    assert.deepEqual(gesdOutliers([100, 140]), []);
  });
});

/** percentile_cont of sorted values. @param {Float64Array} sorted @param {number} q */
function sortedPercentile(sorted, q) {
  const rank = q * (sorted.length - 1);
  const low = Math.floor(rank);
  return sorted[low] + (sorted[Math.ceil(rank)] - sorted[low]) * (rank - low);
}
