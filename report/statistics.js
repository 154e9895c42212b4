// Descriptive statistics for comparing runs: the same definitions as the SQL of sql/queries
// (percentile_cont's linear interpolation, sample standard deviation), and Student-t confidence
// intervals of a mean over repeated runs.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** @type {((p: number, df: number) => number) | undefined} */
let tQuantile;

/** @param {number[]} values */
export function mean(values) {
  if (values.length === 0) return null;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Sample standard deviation (n - 1), as PostgreSQL's stddev_samp. @param {number[]} values */
export function stddevSample(values) {
  if (values.length < 2) return null;
  const m = /** @type {number} */ (mean(values));
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
}

/**
 * Percentile with linear interpolation between the two nearest ranks, as PostgreSQL's
 * percentile_cont. @param {number[]} values @param {number} fraction 0..1
 */
export function percentile(values, fraction) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = fraction * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - lower);
}

/** Two-sided quantile: t such that P(|T| <= t) = level, with `df` degrees of freedom. */
export function studentT(/** @type {number} */ df, level = 0.95) {
  // Required on first use: its hundreds of modules would load into every report, even of one run.
  tQuantile ??= /** @type {(p: number, df: number) => number} */ (require('@stdlib/stats-base-dists-t-quantile'));
  return tQuantile(1 - (1 - level) / 2, df);
}

/**
 * Mean and the half-width of its confidence interval (Student t, n - 1 degrees of freedom);
 * halfWidth is null for fewer than two values.
 * @param {number[]} values @param {number} [level]
 */
export function confidenceInterval(values, level = 0.95) {
  const sd = stddevSample(values);
  return {
    n: values.length,
    mean: mean(values),
    halfWidth: sd === null ? null : (studentT(values.length - 1, level) * sd) / Math.sqrt(values.length),
  };
}
