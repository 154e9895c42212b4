// Which layer moved. Over the requests with a router record, e2e = outside the router
// (e2e − response_time) + in the router (gorouter_time) + behind it (response_time −
// gorouter_time), request by request, so the change of the mean e2e is the sum of the layers'
// mean changes and the layer carrying most of it is named. Percentiles do not add up that way:
// for the tail, the requests slower than the baseline's p95 are broken down by layer instead.
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
 * The requests slower than the baseline's p95 on each side: how many (a share of the side's
 * requests) and their mean per layer; `layer`: the one whose tail mean grew most.
 * @param {RunData[]} baseline @param {RunData[]} candidate
 */
export function tailBreakdown(baseline, candidate) {
  const lists = baseline.flatMap((d) => d.blocks.map((b) => b.hist));
  const dense = denseFor(lists);
  for (const list of lists) addTo(dense, list);
  const [p95] = quantiles(dense, [0.95]);
  if (p95 === null) return null;
  const edge = bucketOf(p95);
  const side = (/** @type {RunData[]} */ runs) => {
    let requests = 0;
    let above = 0;
    const sums = { matched: 0, outside: 0, router: 0, behind: 0 };
    for (const data of runs) {
      for (const b of data.blocks) requests += b.n;
      for (const [bucket, layers] of data.buckets) {
        if (bucket <= edge) continue;
        above += layers.n;
        sums.matched += layers.matched;
        sums.outside += layers.outsideSum;
        sums.router += layers.routerSum;
        sums.behind += layers.behindSum;
      }
    }
    const mean = (/** @type {number} */ sum) => (sums.matched > 0 ? sum / sums.matched : null);
    return {
      share: requests > 0 ? above / requests : null,
      outside_router_ms: mean(sums.outside),
      router_ms: mean(sums.router),
      behind_router_ms: mean(sums.behind),
    };
  };
  const b = side(baseline);
  const c = side(candidate);
  /** @type {Layer | null} */
  let layer = null;
  let most = 0;
  for (const [name] of LAYERS) {
    const key = /** @type {'outside_router_ms' | 'router_ms' | 'behind_router_ms'} */ (`${name}_ms`);
    const grew = (c[key] ?? 0) - (b[key] ?? 0);
    if (b[key] !== null && c[key] !== null && grew > most) {
      most = grew;
      layer = name;
    }
  }
  return { baseline_p95_ms: p95, baseline: b, candidate: c, layer };
}
