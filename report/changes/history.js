// `paasmon changes`: the change points of each figure over a history of runs (rows of the view
// run_history, oldest first), each with the run it starts at, whether it is a regression, its
// size, and the layer of the latency whose mean moved most across it.
import { changePoints, magnitude, DEFAULT_CHANGE_OPTIONS } from './otava.js';

/**
 * A figure of run_history: `better` 1 when higher is better, -1 when lower; `layer` names the
 * latency layer a figure is the mean of (compare's: outside_router, router, behind_router);
 * `within` the layers a figure is the sum of, among which the one that moved is named.
 * @typedef {{ name: string, unit: string, better: 1 | -1, layer?: string, within?: string[] }} Figure
 */
/** @type {Figure[]} */
export const FIGURES = [
  { name: 'throughput_rps', unit: 'req/s', better: 1 },
  { name: 'e2e_mean_ms', unit: 'ms', better: -1 },
  { name: 'e2e_p50_ms', unit: 'ms', better: -1 },
  { name: 'e2e_p95_ms', unit: 'ms', better: -1 },
  { name: 'e2e_p99_ms', unit: 'ms', better: -1 },
  { name: 'outside_router_mean_ms', unit: 'ms', better: -1, layer: 'outside_router' },
  { name: 'router_mean_ms', unit: 'ms', better: -1, within: ['router', 'behind_router'] },
  { name: 'gorouter_mean_ms', unit: 'ms', better: -1, layer: 'router' },
  { name: 'behind_router_mean_ms', unit: 'ms', better: -1, layer: 'behind_router' },
  { name: 'error_ratio', unit: 'ratio', better: -1 },
  { name: 'cpu_ms_per_request', unit: 'ms', better: -1 },
  { name: 'mem_bytes_avg', unit: 'bytes', better: -1 },
];
export const FIGURE_NAMES = FIGURES.map((f) => f.name);
const LAYERS = FIGURES.filter((f) => f.layer);

/**
 * @typedef {{ run_id: number, label: string, started_at: string } & Record<string, any>} HistoryRow
 * @typedef {object} ChangePointRow
 * @property {number} run_id first run after the change
 * @property {number} previous_run_id last run before it
 * @property {number} index position of run_id in the runs that have this figure
 * @property {string} figure @property {string} unit
 * @property {'regression' | 'improvement'} direction
 * @property {number} change_percent (mean after / mean before - 1) x 100
 * @property {number} magnitude Otava's: max(|after/before - 1|, |before/after - 1|)
 * @property {number} mean_before @property {number} mean_after
 * @property {number} stddev_before @property {number} stddev_after
 * @property {number} p_value two-sided t-test of the runs since the previous change point against
 *   the runs up to the next one
 * @property {string | null} layer the latency layer whose mean changed most across the same runs
 * @property {Record<string, number | null>} layer_change_ms each layer's mean after minus before
 */

/** @param {HistoryRow[]} rows @param {string} name */
const seriesOf = (rows, name) => rows.filter((r) => r[name] !== null && r[name] !== undefined);

/**
 * Mean of a layer over rows[from, to), the rows without it left out.
 * @param {HistoryRow[]} rows @param {string} name @param {number} from @param {number} to
 */
function layerMean(rows, name, from, to) {
  const values = rows.slice(from, to).flatMap((r) => (r[name] === null || r[name] === undefined ? [] : [r[name]]));
  return values.length ? values.reduce((s, v) => s + v, 0) / values.length : null;
}

/**
 * How each layer's mean moved between rows[from, at) and rows[at, to), and the largest mover.
 * @param {HistoryRow[]} rows @param {number} from @param {number} at @param {number} to
 * @param {Figure} figure
 */
function layerChange(rows, from, at, to, figure) {
  /** @type {Record<string, number | null>} */
  const change = {};
  for (const l of LAYERS) {
    const before = layerMean(rows, l.name, from, at);
    const after = layerMean(rows, l.name, at, to);
    change[/** @type {string} */ (l.layer)] = before === null || after === null ? null : after - before;
  }
  const moved = Object.entries(change).filter(
    ([layer, d]) => d !== null && d !== 0 && (!figure.within || figure.within.includes(layer)),
  );
  moved.sort((a, b) => Math.abs(/** @type {number} */ (b[1])) - Math.abs(/** @type {number} */ (a[1])));
  return { layer: figure.layer ?? moved[0]?.[0] ?? null, change };
}

/**
 * The change points of each figure (all, or `only`) over these runs, oldest first.
 * @param {HistoryRow[]} rows ordered by start
 * @param {import('./otava.js').ChangeOptions & { only?: string }} [options]
 */
export function findChanges(rows, options = {}) {
  const figures = options.only ? FIGURES.filter((f) => f.name === options.only) : FIGURES;
  /** @type {ChangePointRow[]} */
  const found = [];
  for (const figure of figures) {
    const series = seriesOf(rows, figure.name);
    const points = changePoints(
      series.map((r) => Number(r[figure.name])),
      options,
    );
    points.forEach((p, k) => {
      const run = series[p.index];
      const from = rows.indexOf(series[k ? points[k - 1].index : 0]);
      const to = k + 1 < points.length ? rows.indexOf(series[points[k + 1].index]) : rows.length;
      const { meanBefore, meanAfter, stdBefore, stdAfter, pValue } = p.stats;
      const layers = layerChange(rows, from, rows.indexOf(run), to, figure);
      found.push({
        run_id: run.run_id,
        previous_run_id: series[p.index - 1].run_id,
        index: p.index,
        figure: figure.name,
        unit: figure.unit,
        direction: (meanAfter - meanBefore) * figure.better > 0 ? 'improvement' : 'regression',
        change_percent: meanBefore === 0 ? 0 : (meanAfter / meanBefore - 1) * 100,
        magnitude: magnitude(p.stats),
        mean_before: meanBefore,
        mean_after: meanAfter,
        stddev_before: stdBefore,
        stddev_after: stdAfter,
        p_value: pValue,
        layer: layers.layer,
        layer_change_ms: layers.change,
      });
    });
  }
  const order = new Map(rows.map((r, i) => [r.run_id, i]));
  const position = (/** @type {ChangePointRow} */ c) => /** @type {number} */ (order.get(c.run_id));
  found.sort((a, b) => position(a) - position(b) || FIGURE_NAMES.indexOf(a.figure) - FIGURE_NAMES.indexOf(b.figure));
  return found;
}

export { DEFAULT_CHANGE_OPTIONS };
