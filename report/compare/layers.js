// Which layer moved. Over the requests with a router record, e2e = outside the router
// (e2e − response_time) + in the router (gorouter_time) + behind it (response_time −
// gorouter_time), request by request, so the change of the mean e2e is the sum of the layers'
// mean changes and the layer carrying most of it is named. Percentiles do not add up that way:
// for the tail, the requests slower than the p95 are broken down by layer instead.
import { addTo, bucketOf, denseFor, quantiles } from './histogram.js';

export const LAYERS = /** @type {const} */ ([
  ['outside_router', 'outside_router_mean_ms'],
  ['router', 'router_mean_ms'],
  ['behind_router', 'behind_router_mean_ms'],
]);

/**
 * @typedef {import('./figures.js').Layer} Layer
 * @typedef {import('./rounds.js').RunData} RunData
 * @typedef {{ layer: Layer, baseline_ms: number, candidate_ms: number, change_ms: number,
 *   share: number | null }} LayerChange
 */

/**
 * Each layer's change of mean and share of the change of the mean e2e (of requests with a router
 * record); `layer`: the one whose change goes most in the direction of the total's.
 * @param {Record<string, { value: number } | null>} baseline side estimates by figure name
 * @param {Record<string, { value: number } | null>} candidate
 * @returns {{ layers: LayerChange[], total_change_ms: number, layer: Layer } | null}
 */
export function meanAttribution(baseline, candidate) {
  const rows = [];
  for (const [layer, figure] of LAYERS) {
    const b = baseline[figure];
    const c = candidate[figure];
    if (!b || !c) return null;
    /** @type {LayerChange} */
    const row = { layer, baseline_ms: b.value, candidate_ms: c.value, change_ms: c.value - b.value, share: null };
    rows.push(row);
  }
  const total = rows.reduce((s, r) => s + r.change_ms, 0);
  for (const row of rows) row.share = total !== 0 ? row.change_ms / total : null;
  const sign = total >= 0 ? 1 : -1;
  const top = rows.reduce((best, r) => (sign * r.change_ms > sign * best.change_ms ? r : best));
  return { layers: rows, total_change_ms: total, layer: top.layer };
}

/**
 * The tail by layer: on each side the requests slower than that side's p95, and each layer's mean
 * among them. Their mean e2e is the sum of those means, so its change is the sum of the layers'
 * changes, as for the whole mean; `layer`: the one whose mean in the tail grew most. Also how many
 * of the candidate's requests are slower than the baseline's p95.
 * @param {RunData[]} baseline @param {RunData[]} candidate
 */
export function tailBreakdown(baseline, candidate) {
  const p95b = p95Of(baseline);
  const p95c = p95Of(candidate);
  if (p95b === null || p95c === null) return null;
  const b = tailOf(baseline, bucketOf(p95b));
  const c = tailOf(candidate, bucketOf(p95c));
  /** @type {Layer | null} */
  let layer = null;
  let most = 0;
  for (const [name] of LAYERS) {
    const before = b.mean_ms[name];
    const now = c.mean_ms[name];
    if (before !== null && now !== null && now - before > most) {
      most = now - before;
      layer = name;
    }
  }
  return {
    baseline_p95_ms: p95b,
    candidate_p95_ms: p95c,
    candidate_above_baseline_p95: tailOf(candidate, bucketOf(p95b)).share,
    baseline: b,
    candidate: c,
    layer,
  };
}

/** @param {RunData[]} runs */
function p95Of(runs) {
  const lists = runs.flatMap((d) => d.blocks.map((b) => b.hist));
  const dense = denseFor(lists);
  for (const list of lists) addTo(dense, list);
  return quantiles(dense, [0.95])[0];
}

/** @param {RunData[]} runs @param {number} edge the last bucket not in the tail */
function tailOf(runs, edge) {
  let requests = 0;
  let above = 0;
  let matched = 0;
  const sums = { outside_router: 0, router: 0, behind_router: 0 };
  for (const data of runs) {
    for (const b of data.blocks) requests += b.n;
    for (const [bucket, layers] of data.buckets) {
      if (bucket <= edge) continue;
      above += layers.n;
      matched += layers.matched;
      sums.outside_router += layers.outsideSum;
      sums.router += layers.routerSum;
      sums.behind_router += layers.behindSum;
    }
  }
  /** @type {Record<string, number | null>} */
  const mean = {};
  for (const [name] of LAYERS) mean[name] = matched > 0 ? sums[name] / matched : null;
  return { share: requests > 0 ? above / requests : null, mean_ms: mean };
}
