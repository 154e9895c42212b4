// `paasmon compare`: baseline and candidate runs (rounds of each side) in, the verdict out: each
// figure's change with its 95 % interval and verdict, the gate (a short declared set of figures,
// Holm–Bonferroni across it), the layer that moved, and whether the sides are comparable at all.
// Pure: the rows come from exporters/postgres/queries/compare.js, the text from ./render.js.
import { comparability } from './comparable.js';
import { DEFAULT_GATE, DEFAULT_THRESHOLDS, FIGURES, endpointSpec, figureSpec } from './figures.js';
import { meanAttribution, tailBreakdown } from './layers.js';
import { seededRandom } from './random.js';
import { roundFigures } from './rounds.js';
import { combineRounds, outlierRounds } from './sides.js';
import { changeOf, holmRejected, moreRounds, pValues, verdictOf, LEVEL } from './verdict.js';
import { headline, layersMissingLine, missingLine } from './words.js';
import { studentT } from '../statistics.js';

/** Endpoints (router paths) shown, the busiest of the baseline. */
const ENDPOINTS = 5;

/**
 * @typedef {import('./rounds.js').RunData} RunData
 * @typedef {import('./figures.js').FigureSpec} FigureSpec
 * @typedef {import('./sides.js').SideEstimate} SideEstimate
 * @typedef {'regressed' | 'improved' | 'unchanged' | 'inconclusive' | 'not_comparable'} OverallVerdict
 * @typedef {object} CompareOptions
 * @property {number} seed of the bootstraps
 * @property {string[]} [gate] figure names (DEFAULT_GATE)
 * @property {Partial<Record<import('./figures.js').ThresholdKind, number>>} [thresholds]
 * @property {boolean} [force] compare sides that are not comparable
 * @property {number} [mixTolerance]
 * @property {number} [replicates] bootstrap replicates per round
 * @property {number} [trim]
 */

/**
 * @param {{ baseline: RunData[], candidate: RunData[] }} data @param {CompareOptions} options
 */
export function buildCompare(data, options) {
  const random = seededRandom(options.seed);
  const gate = options.gate ?? DEFAULT_GATE;
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const sides = {
    baseline: sideOf(data.baseline, gate, random, options),
    candidate: sideOf(data.candidate, gate, random, options),
  };
  const reasons = comparability(
    data.baseline.map((d) => d.run),
    data.candidate.map((d) => d.run),
    { baseline: sides.baseline.mix, candidate: sides.candidate.mix },
    options.mixTolerance,
  );
  const specs = [...FIGURES, ...endpoints(sides.baseline.mix, sides.candidate.mix).map(endpointSpec)];
  const figures = specs.map((spec) => figureRow(spec, sides, thresholds, gate.includes(spec.name)));
  applyHolm(figures.filter((f) => f.gated && f.test));
  const gated = figures.filter((f) => f.gated);
  const missing = gated.filter((f) => f.verdict === 'missing').map((f) => missingLine(f.name, data));
  const comparable = reasons.length === 0;
  /** @type {OverallVerdict} */
  let verdict = overall(gated.map((f) => f.verdict));
  if (!comparable && !options.force) verdict = 'not_comparable';
  const attribution = meanAttribution(sides.baseline.estimates, sides.candidate.estimates);
  if (!attribution) missing.push(layersMissingLine(data));
  const tail = tailBreakdown(sides.baseline.kept, sides.candidate.kept);
  const layer = verdict === 'regressed' || verdict === 'improved' ? (attribution?.layer ?? null) : null;
  const result = {
    verdict,
    layer,
    headline: '',
    seed: options.seed,
    trim: options.trim ?? null,
    comparable: { ok: comparable, forced: !comparable && Boolean(options.force), reasons },
    gate,
    thresholds,
    baseline: sideSummary(sides.baseline, data.baseline),
    candidate: sideSummary(sides.candidate, data.candidate),
    figures: figures.map(({ test: _test, ...row }) => row),
    layers: { mean: attribution, tail },
    missing,
  };
  result.headline = headline(result);
  return result;
}

/**
 * @param {RunData[]} runs @param {string[]} gate @param {() => number} random @param {CompareOptions} options
 */
function sideOf(runs, gate, random, options) {
  const ordered = [...runs].sort((a, b) => Number(a.run.run_id) - Number(b.run.run_id));
  const rounds = ordered.map((d) => ({
    runId: Number(d.run.run_id),
    figures: roundFigures(d, random, { replicates: options.replicates }),
  }));
  const outliers = outlierRounds(rounds, [...new Set([...gate, 'e2e_mean_ms'])]);
  const out = new Set(outliers.map((o) => o.runId));
  const keptRounds = rounds.filter((r) => !out.has(r.runId));
  const names = new Set(keptRounds.flatMap((r) => Object.keys(r.figures)));
  /** @type {Record<string, SideEstimate | null>} */
  const estimates = {};
  for (const name of names) estimates[name] = combineRounds(keptRounds.map((r) => r.figures[name] ?? null));
  /** @type {Map<string, number>} */
  const mix = new Map();
  const kept = ordered.filter((d) => !out.has(Number(d.run.run_id)));
  for (const d of kept) {
    for (const [path, rows] of d.paths) mix.set(path, (mix.get(path) ?? 0) + rows.reduce((s, r) => s + r.n, 0));
  }
  return { estimates, outliers, kept, mix };
}

/**
 * The busiest paths of the baseline that the candidate has too.
 * @param {Map<string, number>} b @param {Map<string, number>} c
 */
function endpoints(b, c) {
  if (b.size <= 1) return [];
  return [...b]
    .filter(([path]) => c.has(path))
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, ENDPOINTS)
    .map(([path]) => path);
}

/**
 * @param {FigureSpec} spec @param {Record<'baseline' | 'candidate', ReturnType<typeof sideOf>>} sides
 * @param {Record<string, number>} thresholds @param {boolean} gated
 */
function figureRow(spec, sides, thresholds, gated) {
  const b = sides.baseline.estimates[spec.name] ?? null;
  const c = sides.candidate.estimates[spec.name] ?? null;
  const threshold = thresholds[spec.threshold];
  const change = b && c ? changeOf(b, c, spec.change) : null;
  /** @type {string} */
  let verdict = 'missing';
  let more = null;
  if (b && c) verdict = change ? verdictOf(change.interval, threshold, spec.worse) : 'inconclusive';
  if (change && verdict === 'inconclusive')
    more = moreRounds(change, threshold, spec.change, Math.min(b?.rounds ?? 1, c?.rounds ?? 1));
  return {
    name: spec.name,
    label: spec.label,
    unit: spec.unit,
    layer: spec.layer,
    gated,
    threshold,
    change_kind: spec.change === 'relative' ? 'ratio' : 'difference',
    baseline: sideValue(b),
    candidate: sideValue(c),
    change: change?.change ?? null,
    interval: change?.interval ?? null,
    verdict,
    more_rounds: more,
    p_regressed: null,
    /** @type {{ regress: number, improve: number, more: number | null } | null} */
    test: change
      ? {
          ...pValues(change, threshold, spec.worse, spec.change),
          more: moreRounds(change, threshold, spec.change, Math.min(b?.rounds ?? 1, c?.rounds ?? 1)),
        }
      : null,
  };
}

/** @param {SideEstimate | null} e */
function sideValue(e) {
  if (!e) return null;
  const half = e.variance === null ? null : studentT(Math.max(1, e.df), LEVEL) * Math.sqrt(e.variance);
  return { value: e.value, half_width: half, rounds: e.rounds };
}

/**
 * The gate's verdicts under Holm–Bonferroni: a gated figure regressed (improved) only when its
 * test is rejected within the family; one whose interval alone says so is otherwise inconclusive.
 * @param {Array<ReturnType<typeof figureRow>>} rows
 */
function applyHolm(rows) {
  const regressed = holmRejected(rows.map((r) => /** @type {any} */ (r.test).regress));
  const improved = holmRejected(rows.map((r) => /** @type {any} */ (r.test).improve));
  rows.forEach((row, i) => {
    row.p_regressed = /** @type {any} */ (row.test).regress;
    if (regressed.has(i)) row.verdict = 'regressed';
    else if (improved.has(i)) row.verdict = 'improved';
    else if (row.verdict === 'regressed' || row.verdict === 'improved') {
      row.verdict = 'inconclusive';
      row.more_rounds = /** @type {any} */ (row.test).more;
    }
  });
}

/** @param {string[]} verdicts of the gated figures @returns {OverallVerdict} */
function overall(verdicts) {
  const present = verdicts.filter((v) => v !== 'missing');
  if (present.includes('regressed')) return 'regressed';
  if (present.includes('inconclusive') || present.length === 0) return 'inconclusive';
  if (present.includes('improved')) return 'improved';
  return 'unchanged';
}

/** @param {ReturnType<typeof sideOf>} side @param {RunData[]} runs */
function sideSummary(side, runs) {
  const kept = new Set(side.kept.map((d) => Number(d.run.run_id)));
  return {
    runs: runs.map((d) => Number(d.run.run_id)).sort((a, b) => a - b),
    rounds: kept.size,
    outliers: side.outliers,
    requests: side.kept.reduce((s, d) => s + d.blocks.reduce((t, b) => t + b.n, 0), 0),
  };
}

export { DEFAULT_GATE, DEFAULT_THRESHOLDS, FIGURES, figureSpec };
