import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitUsl, uslThroughput, UslError } from '../../report/usl.js';

// The Cisco benchmark of "Practical Scalability Analysis with the Universal Scalability Law"
// (Baron Schwartz), as published with usl4j's ModelTest (codahale/usl4j): 32 (N, X) points and the
// book's fitted values.
const CISCO = [
  [1, 955.16],
  [2, 1878.91],
  [3, 2688.01],
  [4, 3548.68],
  [5, 4315.54],
  [6, 5130.43],
  [7, 5931.37],
  [8, 6531.08],
  [9, 7219.8],
  [10, 7867.61],
  [11, 8278.71],
  [12, 8646.7],
  [13, 9047.84],
  [14, 9426.55],
  [15, 9645.37],
  [16, 9897.24],
  [17, 10097.6],
  [18, 10240.5],
  [19, 10532.39],
  [20, 10798.52],
  [21, 11151.43],
  [22, 11518.63],
  [23, 11806],
  [24, 12089.37],
  [25, 12075.41],
  [26, 12177.29],
  [27, 12211.41],
  [28, 12158.93],
  [29, 12155.27],
  [30, 12118.04],
  [31, 12140.4],
  [32, 12074.39],
].map(([n, throughput]) => ({ n, throughput }));

/** @param {number} value @param {number} digits */
const significant = (value, digits) => Number(value.toPrecision(digits));

test('the Cisco data set gives the published sigma, kappa and lambda to 5 significant digits', () => {
  const fit = fitUsl(CISCO);
  assert.equal(significant(fit.sigma, 5), significant(0.02671591, 5));
  assert.equal(significant(fit.kappa, 5), significant(7.690945e-4, 5));
  assert.equal(significant(fit.lambda, 5), significant(995.6486, 5));
  // usl4j's book values: N max 35, X max 12341.
  assert.equal(fit.peakN, 35);
  assert.equal(Math.round(/** @type {number} */ (fit.peakThroughput)), 12342);
  assert.equal(fit.points, 32);
});

test('standard errors are those of the linearised model at the optimum (s² (JᵀJ)⁻¹), checked by finite differences', () => {
  const fit = fitUsl(CISCO);
  // Independent: numeric Jacobian of the model, normal matrix inverted by Cramer's rule.
  const p = [fit.lambda, fit.sigma, fit.kappa];
  const rows = CISCO.map(({ n }) =>
    p.map((_, k) => {
      const h = Math.abs(p[k]) * 1e-6;
      const up = [...p];
      up[k] += h;
      const down = [...p];
      down[k] -= h;
      return (uslThroughput(up[0], up[1], up[2], n) - uslThroughput(down[0], down[1], down[2], n)) / (2 * h);
    }),
  );
  const a = [0, 1, 2].map((i) => [0, 1, 2].map((j) => rows.reduce((s, r) => s + r[i] * r[j], 0)));
  const det =
    a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
    a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
    a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  const inverseDiagonal = [
    (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det,
    (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det,
    (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det,
  ];
  const ssr = CISCO.reduce((s, { n, throughput }) => s + (throughput - uslThroughput(p[0], p[1], p[2], n)) ** 2, 0);
  const s2 = ssr / (CISCO.length - 3);
  const expected = inverseDiagonal.map((d) => Math.sqrt(s2 * d));
  const got = [fit.standardErrors.lambda, fit.standardErrors.sigma, fit.standardErrors.kappa].map(Number);
  got.forEach((se, i) =>
    assert.ok(Math.abs(se - expected[i]) / expected[i] < 1e-4, `standard error ${i}: ${se} vs ${expected[i]}`),
  );
  // 95 % interval: t(0.975, 29) = 2.045230 standard errors.
  assert.ok(Math.abs(Number(fit.ci95.sigma) / got[1] - 2.04523) < 1e-5);
});

test('parameters of exact USL data are recovered, with bounds kept (sigma, kappa >= 0)', () => {
  const points = [1, 2, 4, 8, 16, 32, 64].map((n) => ({ n, throughput: uslThroughput(120, 0.05, 0.002, n) }));
  const fit = fitUsl(points);
  assert.ok(
    Math.abs(fit.lambda - 120) < 1e-6 && Math.abs(fit.sigma - 0.05) < 1e-8 && Math.abs(fit.kappa - 0.002) < 1e-9,
    JSON.stringify(fit),
  );
  assert.equal(fit.peakN, Math.floor(Math.sqrt(0.95 / 0.002)));
  // Better than linear: the unconstrained optimum has negative sigma and kappa; the bounded one
  // holds both at 0 (no standard error, no peak) and fits lambda alone: sum(N X) / sum(N²).
  const superlinear = [1, 2, 3, 4, 5, 6].map((n) => ({ n, throughput: 100 * n ** 1.05 }));
  const bounded = fitUsl(superlinear);
  assert.deepEqual([bounded.sigma, bounded.kappa, bounded.peakN, bounded.standardErrors.sigma], [0, 0, null, null]);
  const lambda =
    superlinear.reduce((s, p) => s + p.n * p.throughput, 0) / superlinear.reduce((s, p) => s + p.n * p.n, 0);
  assert.ok(Math.abs(bounded.lambda - lambda) < 1e-6 * lambda, `${bounded.lambda} vs ${lambda}`);
});

test('fewer than 6 points, or fewer than 3 loads, are refused with a clear message', () => {
  assert.throws(
    () => fitUsl(CISCO.slice(0, 5)),
    (err) => err instanceof UslError && /at least 6 runs/.test(err.message) && /got 5/.test(err.message),
  );
  assert.throws(
    () => fitUsl([1, 1, 1, 2, 2, 2].map((n) => ({ n, throughput: n * 10 }))),
    (err) => err instanceof UslError && /3 different loads/.test(err.message),
  );
});
