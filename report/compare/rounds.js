// One round (one run) of a side: its figures, each with the variance of its estimate within the
// run. Requests arrive as time-ordered blocks of the steady window (counts, sums per layer and a
// histogram of e2e per block); the blocks are the batches of the batch-means method, so requests
// that are alike because they are near in time (a GC pause, a queue) count as one batch, not as
// many independent samples. Percentiles get their variance from a bootstrap over the blocks.
import { addTo, denseFor, quantiles } from './histogram.js';

/**
 * @typedef {import('../../core/types.js').CompareBlock} Block
 * @typedef {import('../../core/types.js').CompareBucketLayers} BucketLayers
 * @typedef {import('../../core/types.js').CompareRunData} RunData
 * @typedef {{ value: number, variance: number | null, df: number }} Estimate
 */

/** Bootstrap replicates per round for the percentiles. */
export const BOOTSTRAP_REPLICATES = 400;
export const PERCENTILES = /** @type {const} */ ([
  ['e2e_p50_ms', 0.5],
  ['e2e_p95_ms', 0.95],
  ['e2e_p99_ms', 0.99],
]);

/**
 * Σy / Σn over batches and its variance by batch means (the linearised variance of a ratio
 * estimator over B batches): B / (B − 1) × Σ (y_b − θ n_b)² / (Σn)². Batches with n = 0 count as
 * batches that saw nothing.
 * @param {number[]} ys @param {number[]} ns @returns {Estimate | null}
 */
export function ratioEstimate(ys, ns) {
  const total = ns.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return null;
  const value = ys.reduce((a, b) => a + b, 0) / total;
  const batches = ns.length;
  if (batches < 2) return { value, variance: null, df: 0 };
  let squares = 0;
  for (let b = 0; b < batches; b++) squares += (ys[b] - value * ns[b]) ** 2;
  return { value, variance: (batches / (batches - 1)) * (squares / total ** 2), df: batches - 1 };
}

/**
 * The mean of a series (instance samples in time order) and its variance by batch means over up
 * to `batches` consecutive batches; no variance below 4 values.
 * @param {number[]} values @returns {Estimate | null}
 */
export function seriesEstimate(values, batches = 8) {
  if (values.length === 0) return null;
  const count = Math.min(batches, Math.floor(values.length / 2));
  if (count < 2) return { value: values.reduce((a, b) => a + b, 0) / values.length, variance: null, df: 0 };
  const ys = new Array(count).fill(0);
  const ns = new Array(count).fill(0);
  values.forEach((v, i) => {
    const b = Math.floor((i * count) / values.length);
    ys[b] += v;
    ns[b] += 1;
  });
  return ratioEstimate(ys, ns);
}

/**
 * The e2e percentiles of a run from its blocks' histograms, and their variances from a bootstrap
 * that draws the blocks with replacement (`replicates` times, from `random`).
 * @param {Block[]} blocks @param {() => number} random @param {number} [replicates]
 * @returns {Record<string, Estimate | null>}
 */
export function percentileEstimates(blocks, random, replicates = BOOTSTRAP_REPLICATES) {
  const lists = blocks.map((b) => b.hist);
  const dense = denseFor(lists);
  for (const list of lists) addTo(dense, list);
  const fractions = PERCENTILES.map(([, q]) => q);
  const point = quantiles(dense, fractions);
  // Each block as positions in the dense histogram and counts: a replicate only adds numbers.
  const positions = lists.map((list) => Int32Array.from(list, ([bucket]) => bucket - dense.offset));
  const counts = lists.map((list) => Float64Array.from(list, ([, count]) => count));
  /** @type {number[][]} */
  const draws = fractions.map(() => []);
  for (let r = 0; r < replicates && blocks.length > 1; r++) {
    dense.counts.fill(0);
    for (let i = 0; i < blocks.length; i++) {
      const pick = Math.floor(random() * blocks.length);
      const at = positions[pick];
      const n = counts[pick];
      for (let j = 0; j < at.length; j++) dense.counts[at[j]] += n[j];
    }
    quantiles(dense, fractions).forEach((v, i) => v !== null && draws[i].push(v));
  }
  return Object.fromEntries(
    PERCENTILES.map(([name], i) => {
      const value = point[i];
      if (value === null) return [name, null];
      return [name, { value, variance: sampleVariance(draws[i]), df: blocks.length - 1 }];
    }),
  );
}

/** @param {number[]} values @returns {number | null} */
export function sampleVariance(values) {
  if (values.length < 2) return null;
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1);
}

/**
 * Every figure of one round (null where the run has no data for it).
 * @param {RunData} data @param {() => number} random @param {{ replicates?: number }} [options]
 * @returns {Record<string, Estimate | null>}
 */
export function roundFigures(data, random, options = {}) {
  const { blocks } = data;
  const column = (/** @type {keyof Block} */ key) => blocks.map((b) => /** @type {number} */ (b[key]));
  const seconds = blocks.map(() => Number(data.run.window_s) / Math.max(1, blocks.length));
  const matched = column('matched');
  const requests = column('n').reduce((a, b) => a + b, 0);
  const cpu = data.usage.map((u) => u.cpu).filter((v) => v !== null);
  const mem = data.usage.map((u) => u.mem).filter((v) => v !== null);
  const cpuMean = seriesEstimate(/** @type {number[]} */ (cpu));
  // CPU ms per request: the window's core-milliseconds (mean % of a core × its length) per request.
  const perRequest = (Number(data.run.window_s) * 10) / requests;
  /** @type {Record<string, Estimate | null>} */
  const figures = {
    throughput_rps: ratioEstimate(column('ok'), seconds),
    error_ratio: ratioEstimate(column('errors'), column('n')),
    e2e_mean_ms: ratioEstimate(column('e2eSum'), column('n')),
    ...(requests > 0 ? percentileEstimates(blocks, random, options.replicates) : {}),
    outside_router_mean_ms: ratioEstimate(column('outsideSum'), matched),
    router_mean_ms: ratioEstimate(column('routerSum'), matched),
    behind_router_mean_ms: ratioEstimate(column('behindSum'), matched),
    matched_e2e_mean_ms: ratioEstimate(column('matchedE2eSum'), matched),
    cpu_ms_per_request: cpuMean && requests > 0 ? scaled(cpuMean, perRequest) : null,
    memory_mib: scaled(seriesEstimate(/** @type {number[]} */ (mem)), 1 / 1048576),
  };
  for (const [path, rows] of data.paths) {
    const ys = new Array(blocks.length).fill(0);
    const ns = new Array(blocks.length).fill(0);
    for (const row of rows) {
      ys[row.block] += row.e2eSum;
      ns[row.block] += row.n;
    }
    figures[`endpoint_mean_ms:${path}`] = ratioEstimate(ys, ns);
  }
  return figures;
}

/** @param {Estimate | null} estimate @param {number} factor @returns {Estimate | null} */
function scaled(estimate, factor) {
  if (!estimate) return null;
  const variance = estimate.variance === null ? null : estimate.variance * factor ** 2;
  return { value: estimate.value * factor, variance, df: estimate.df };
}
