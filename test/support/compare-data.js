// Runs of `paasmon compare` built in memory: requests with their layers (outside the router, in
// it, behind it), and their aggregation into the blocks the database query gives, written apart
// from that query (a loop over requests, no SQL) so each can check the other.
import { bucketOf } from '../../report/compare/histogram.js';

/**
 * @typedef {{ t: number, e2e: number, rt: number | null, gt: number | null, status: number, path?: string }} Request
 *   t: seconds since the window's start
 */

/**
 * A deterministic generator (an LCG, unlike the product's mulberry32) for test data.
 * @param {number} seed
 */
export function lcg(seed) {
  let state = BigInt(seed) & 0xffffffffffffn;
  return () => {
    state = (state * 0x5deece66dn + 0xbn) & 0xffffffffffffn;
    return Number(state >> 16n) / 2 ** 32;
  };
}

/**
 * Requests of one round: layers in ms with a shared slow drift (autocorrelation) and noise.
 * @param {{ seed: number, requests: number, windowS: number, outside?: number, router?: number, behind?: number,
 *   level?: number, errorEvery?: number, paths?: string[] }} spec level: the round's own factor (run-to-run noise)
 * @returns {Request[]}
 */
export function roundRequests(spec) {
  const random = lcg(spec.seed);
  const level = spec.level ?? 1;
  /** @type {Request[]} */
  const requests = [];
  let drift = 0;
  for (let i = 0; i < spec.requests; i++) {
    drift = 0.95 * drift + 0.1 * (random() - 0.5);
    const noise = () => Math.exp(drift + 0.3 * (random() - 0.5));
    const outside = (spec.outside ?? 2) * level * noise();
    const router = (spec.router ?? 0.5) * level * noise();
    const behind = (spec.behind ?? 10) * level * noise() * (random() < 0.03 ? 4 : 1);
    const error = spec.errorEvery ? i % spec.errorEvery === spec.errorEvery - 1 : false;
    requests.push({
      t: ((i + 0.5) * spec.windowS) / spec.requests,
      e2e: outside + router + behind,
      rt: router + behind,
      gt: router,
      status: error ? 503 : 200,
      path: spec.paths ? spec.paths[i % spec.paths.length] : '/api',
    });
  }
  return requests;
}

/**
 * The RunData of these requests, as exporters/postgres/queries/compare.js makes it from rows.
 * @param {Record<string, any>} run with window_s @param {Request[]} requests
 * @param {{ blocks?: number, usage?: Array<{ cpu: number | null, mem: number | null }> }} [options]
 * @returns {import('../../report/compare/rounds.js').RunData}
 */
export function runData(run, requests, options = {}) {
  const count = options.blocks ?? 32;
  const blocks = Array.from({ length: count }, () => ({
    n: 0,
    errors: 0,
    ok: 0,
    e2eSum: 0,
    matched: 0,
    matchedE2eSum: 0,
    outsideSum: 0,
    routerSum: 0,
    behindSum: 0,
    /** @type {Map<number, number>} */ counts: new Map(),
  }));
  /** @type {Map<number, import('../../report/compare/rounds.js').BucketLayers>} */
  const buckets = new Map();
  /** @type {Map<string, Map<number, { block: number, n: number, e2eSum: number }>>} */
  const paths = new Map();
  for (const r of requests) {
    const index = Math.min(count - 1, Math.floor((r.t / run.window_s) * count));
    const b = blocks[index];
    const bucket = bucketOf(r.e2e);
    b.n += 1;
    b.e2eSum += r.e2e;
    if (r.status === 0 || r.status >= 500) b.errors += 1;
    else b.ok += 1;
    b.counts.set(bucket, (b.counts.get(bucket) ?? 0) + 1);
    const layers = buckets.get(bucket) ?? { n: 0, matched: 0, outsideSum: 0, routerSum: 0, behindSum: 0 };
    layers.n += 1;
    buckets.set(bucket, layers);
    if (r.rt !== null && r.gt !== null) {
      b.matched += 1;
      b.matchedE2eSum += r.e2e;
      b.outsideSum += r.e2e - r.rt;
      b.routerSum += r.gt;
      b.behindSum += r.rt - r.gt;
      layers.matched += 1;
      layers.outsideSum += r.e2e - r.rt;
      layers.routerSum += r.gt;
      layers.behindSum += r.rt - r.gt;
      const byBlock = paths.get(r.path ?? '') ?? new Map();
      const row = byBlock.get(index) ?? { block: index, n: 0, e2eSum: 0 };
      row.n += 1;
      row.e2eSum += r.e2e;
      byBlock.set(index, row);
      paths.set(r.path ?? '', byBlock);
    }
  }
  return {
    run,
    blocks: blocks.map(({ counts, ...b }) => ({ ...b, hist: /** @type {Array<[number, number]>} */ ([...counts]) })),
    buckets,
    paths: new Map([...paths].map(([path, rows]) => [path, [...rows.values()]])),
    usage: options.usage ?? [],
  };
}

/**
 * A side of `rounds` rounds of one setting, with a run-to-run level noise of `spread`.
 * @param {{ firstId: number, rounds: number, seed: number, spread?: number, run?: Record<string, any>,
 *   requests?: number } & Record<string, any>} spec
 */
export function side(spec) {
  const random = lcg(spec.seed * 7919 + 1);
  return Array.from({ length: spec.rounds }, (_, k) => {
    const level = 1 + (spec.spread ?? 0.01) * (2 * random() - 1);
    const run = {
      run_id: spec.firstId + k,
      app_name: 'shop',
      instances: 2,
      parallel: 8,
      cores_per_instance: 1,
      meta: {},
      window_s: 60,
      ...spec.run,
    };
    const requests = roundRequests({
      requests: spec.requests ?? 4000,
      windowS: 60,
      ...spec,
      seed: spec.seed + k,
      level,
    });
    const usage = Array.from({ length: 12 }, (_, i) => ({
      cpu: 150 * level * (1 + 0.05 * Math.sin(i + spec.seed + k)) * (spec.cpu ?? 1),
      mem: 300 * 1048576 * (1 + 0.01 * Math.cos(i)),
    }));
    return runData(run, requests, { usage });
  });
}
