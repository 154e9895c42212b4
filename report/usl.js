// Universal Scalability Law: X(N) = λN / (1 + σ(N - 1) + κN(N - 1)), throughput X against load N
// (parallel requests or instances). Fitted by bounded nonlinear least squares (Levenberg-Marquardt,
// λ, σ, κ >= 0, σ <= 1), not by the linearised shortcut, which weighs the points badly and is
// biased on small sets. Standard errors from the Jacobian at the optimum: s² (JᵀJ)⁻¹.
import { levenbergMarquardt } from 'ml-levenberg-marquardt';
import { Matrix, inverse } from 'ml-matrix';
import { studentT } from './statistics.js';

export const MIN_POINTS = 6;

/** Too few or unusable points to fit: the report shows the message instead of a curve. */
export class UslError extends Error {}

/** @param {number} lambda @param {number} sigma @param {number} kappa @param {number} n */
export function uslThroughput(lambda, sigma, kappa, n) {
  return (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

/**
 * @typedef {object} UslFit
 * @property {number} lambda throughput of one unit of load without contention (X at N = 1 when σ = κ = 0)
 * @property {number} sigma contention (serial fraction)
 * @property {number} kappa coherency (crosstalk)
 * @property {{ lambda: number | null, sigma: number | null, kappa: number | null }} standardErrors
 *   null for a parameter held at its bound (0)
 * @property {{ lambda: number | null, sigma: number | null, kappa: number | null }} ci95
 *   half-widths, Student t with n - 3 degrees of freedom
 * @property {number | null} peakN N* = floor(sqrt((1 - σ) / κ)); null when κ = 0 (no peak)
 * @property {number | null} peakThroughput X(N*)
 * @property {number} points
 * @property {number} residualStddev
 */

/**
 * Least squares with σ and/or κ pinned to 0 (the faces of the feasible region). The bounds of the
 * free parameters are kept by the parametrisation, σ = sin²(s) in [0, 1] and κ = k² >= 0, so the
 * library's optimiser moves freely (its own clamping of a step stalls when the optimum sits on a
 * bound). Fitted on throughput / scale so that λ starts near 1 and the damping (added to JᵀJ's
 * diagonal unscaled) suits every parameter.
 * @param {Array<{ n: number, throughput: number }>} points @param {{ sigma: boolean, kappa: boolean }} pinned
 */
function leastSquares(points, pinned) {
  const scale = Math.max(...points.map((p) => p.throughput / p.n));
  const data = { x: points.map((p) => p.n), y: points.map((p) => p.throughput / scale) };
  const sigmaOf = (/** @type {number} */ s) => (pinned.sigma ? 0 : Math.sin(s) ** 2);
  const kappaOf = (/** @type {number} */ k) => (pinned.kappa ? 0 : k * k);
  const model =
    (/** @type {number[]} */ [a, s, k]) =>
    (/** @type {number} */ n) =>
      uslThroughput(a, sigmaOf(s), kappaOf(k), n);
  const jacobian =
    (/** @type {number[]} */ [a, s, k]) =>
    (/** @type {number} */ n) => {
      const d = 1 + sigmaOf(s) * (n - 1) + kappaOf(k) * n * (n - 1);
      return [
        n / d,
        pinned.sigma ? 0 : (-a * n * (n - 1) * Math.sin(2 * s)) / (d * d),
        pinned.kappa ? 0 : (-a * n * n * (n - 1) * 2 * k) / (d * d),
      ];
    };
  let parameters = [1, 0.1, 0.01];
  let previous = Infinity;
  // The library stops only on an absolute error or an iteration count: restart it from where it
  // got until a round no longer improves the sum of squares.
  for (let round = 0; round < 50; round++) {
    const result = levenbergMarquardt(data, model, {
      initialValues: parameters,
      minValues: [0, -Infinity, -Infinity],
      maxValues: [Infinity, Infinity, Infinity],
      maxIterations: 200,
      errorTolerance: 0,
      jacobianFunction: jacobian,
    });
    parameters = result.parameterValues;
    if (previous - result.parameterError <= 1e-13 * result.parameterError) break;
    previous = result.parameterError;
  }
  const [lambda, sigma, kappa] = [parameters[0] * scale, sigmaOf(parameters[1]), kappaOf(parameters[2])];
  const ssr = points.reduce((sum, p) => sum + (p.throughput - uslThroughput(lambda, sigma, kappa, p.n)) ** 2, 0);
  return { lambda, sigma, kappa, ssr, pinned };
}

/**
 * @param {Array<{ n: number, throughput: number }>} measurements
 * @returns {UslFit}
 */
export function fitUsl(measurements) {
  const points = measurements.filter((m) => Number.isFinite(m.n) && m.n > 0 && Number.isFinite(m.throughput));
  if (points.length < MIN_POINTS) {
    throw new UslError(
      `the Universal Scalability Law needs at least ${MIN_POINTS} runs with a load and a throughput, ` +
        `got ${points.length}`,
    );
  }
  if (new Set(points.map((p) => p.n)).size < 3) {
    throw new UslError('the Universal Scalability Law needs at least 3 different loads');
  }
  // The bounded optimum is inside the region or on one of its faces (σ = 0, κ = 0, both): fit
  // each and keep the best, preferring a face that is as good (the interior fit only approaches it).
  const candidates = [
    { sigma: false, kappa: false },
    { sigma: true, kappa: false },
    { sigma: false, kappa: true },
    { sigma: true, kappa: true },
  ].map((pinned) => leastSquares(points, pinned));
  const least = Math.min(...candidates.map((c) => c.ssr));
  const best = candidates
    .filter((c) => c.ssr <= least * (1 + 1e-9) + 1e-12)
    .sort(
      (a, b) => Number(b.pinned.sigma) + Number(b.pinned.kappa) - Number(a.pinned.sigma) - Number(a.pinned.kappa),
    )[0];
  const { lambda, sigma, kappa } = best;
  if (!(lambda > 0) || !Number.isFinite(sigma) || !Number.isFinite(kappa)) {
    throw new UslError('the Universal Scalability Law fit did not converge on these points');
  }
  const dof = points.length - 3;
  const s2 = best.ssr / dof;
  // Standard errors of the free parameters; one held at its bound has none (null).
  const free = [true, !best.pinned.sigma, !best.pinned.kappa];
  const j = new Matrix(
    points.map((p) => {
      const d = 1 + sigma * (p.n - 1) + kappa * p.n * (p.n - 1);
      return [p.n / d, (-lambda * p.n * (p.n - 1)) / (d * d), (-lambda * p.n * p.n * (p.n - 1)) / (d * d)].filter(
        (_, i) => free[i],
      );
    }),
  );
  /** @type {Matrix | null} */
  let covariance = null;
  try {
    covariance = inverse(j.transpose().mmul(j)).mul(s2);
  } catch {
    covariance = null;
  }
  const se = (/** @type {number} */ i) => {
    if (!free[i] || !covariance) return null;
    const index = free.slice(0, i).filter(Boolean).length;
    return Math.sqrt(Math.max(0, covariance.get(index, index)));
  };
  const t = studentT(dof);
  const half = (/** @type {number | null} */ e) => (e === null ? null : t * e);
  const peakN = kappa > 0 ? Math.floor(Math.sqrt((1 - sigma) / kappa)) : null;
  return {
    lambda,
    sigma,
    kappa,
    standardErrors: { lambda: se(0), sigma: se(1), kappa: se(2) },
    ci95: { lambda: half(se(0)), sigma: half(se(1)), kappa: half(se(2)) },
    peakN,
    peakThroughput: peakN === null ? null : uslThroughput(lambda, sigma, kappa, Math.max(1, peakN)),
    points: points.length,
    residualStddev: Math.sqrt(s2),
  };
}
