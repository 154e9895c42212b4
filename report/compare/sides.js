// A side (baseline or candidate) from its rounds: each figure's mean over the rounds and the
// variance of that mean. The round is the unit of evidence: with two or more rounds the variance
// is the larger of the between-round variance / k and the mean within-run variance / k (df k − 1);
// with one round, only the within-run variance (its blocks) speaks, and the run-to-run noise it
// cannot see is what the noise threshold is for.
import { gesdOutliers } from './gesd.js';

/**
 * @typedef {import('./rounds.js').Estimate} Estimate
 * @typedef {{ value: number, variance: number | null, df: number, rounds: number }} SideEstimate
 * @typedef {{ runId: number, figure: string, value: number }} Outlier
 */

/**
 * @param {Array<Estimate | null>} rounds one per round (null: no data in that round)
 * @returns {SideEstimate | null}
 */
export function combineRounds(rounds) {
  const present = /** @type {Estimate[]} */ (rounds.filter((r) => r !== null && Number.isFinite(r.value)));
  const k = present.length;
  if (k === 0) return null;
  if (k === 1) return { ...present[0], rounds: 1 };
  const mean = present.reduce((s, r) => s + r.value, 0) / k;
  const between = present.reduce((s, r) => s + (r.value - mean) ** 2, 0) / (k - 1) / k;
  const withins = present.map((r) => r.variance).filter((v) => v !== null);
  const within = withins.length === k ? withins.reduce((s, v) => s + v, 0) / k / k : 0;
  return { value: mean, variance: Math.max(between, within), df: k - 1, rounds: k };
}

/**
 * Rounds whose value of any of `figures` lies far from the side's other rounds (GESD at α 0.05,
 * up to (k − 1) / 2 of them); they are left out of the side, not averaged in.
 * @param {Array<{ runId: number, figures: Record<string, Estimate | null> }>} rounds
 * @param {string[]} figures
 * @returns {Outlier[]}
 */
export function outlierRounds(rounds, figures) {
  /** @type {Outlier[]} */
  const outliers = [];
  for (const figure of figures) {
    const present = rounds.filter((r) => r.figures[figure] != null);
    const values = present.map((r) => /** @type {Estimate} */ (r.figures[figure]).value);
    for (const index of gesdOutliers(values)) {
      outliers.push({ runId: present[index].runId, figure, value: values[index] });
    }
  }
  return outliers;
}
