// The load generator: a closed model (P requests always in flight), an open model (R requests per
// second on a fixed schedule, latency measured from the scheduled send time, so a stalled server
// is not hidden), or a fixed count. Every request is recorded; percentiles come from an HDR histogram.
//
// Its parts: load.js (a run's state, a request in flight), open-model.js (the schedule).
import { Load } from './load.js';
import { openModel } from './open-model.js';

export { errorKind } from './load.js';
export { PREOPEN_LATENCY_MS, PREOPEN_WAIT_MS } from './open-model.js';

/**
 * @typedef {import('./load.js').LoadOptions} LoadOptions
 * @typedef {import('./load.js').LoadHooks} LoadHooks
 * @typedef {import('./open-model.js').ScheduleTally} ScheduleTally
 */

/**
 * Closed model: `parallel` loops, each sending its next request when its last one completed.
 * @param {Load} load @returns {Promise<void>}
 */
function closedModel(load) {
  return new Promise((resolve) => {
    load.onDone = () => {
      if (load.more()) load.send(performance.now());
      else if (load.inFlight === 0) resolve();
    };
    for (let i = 0; i < load.options.parallel && load.more(); i++) load.send(performance.now());
    if (load.inFlight === 0) resolve();
  });
}
/** @param {Load} load @returns {Promise<ScheduleTally | undefined>} */
function drive(load) {
  return load.options.rate ? openModel(load, load.options.rate) : closedModel(load).then(() => undefined);
}

/**
 * The warm-up: the same load (no ramp) for `warmupMs` on the connections the measured load goes on
 * with, so the target's JIT, caches and pools and the generator's connections are warm; only counted.
 * @param {LoadOptions} options @param {LoadHooks} hooks @param {number} warmupMs
 */
async function warmUp(options, hooks, warmupMs) {
  const warm = { ...options, durationMs: warmupMs, requests: undefined, rampMs: 0 };
  const load = new Load(warm, { record: () => undefined, signal: hooks.signal });
  await drive(load).catch(async (err) => {
    await load.connections.close();
    throw err;
  });
  return { load, warmup: { stats: load.stats, elapsedMs: performance.now() - load.clockStart } };
}

/**
 * @param {LoadOptions} options
 * @param {LoadHooks} hooks
 */
export async function generateLoad(options, hooks) {
  const warmed = options.warmupMs ? await warmUp(options, hooks, options.warmupMs) : undefined;
  const load = new Load(options, hooks, warmed?.load.connections);
  const progress = hooks.onProgress
    ? setInterval(() => hooks.onProgress?.(load.stats, performance.now() - load.clockStart), 1000)
    : undefined;
  /** @type {ScheduleTally | undefined} */
  let schedule;
  try {
    schedule = await drive(load);
  } finally {
    clearInterval(progress);
    await load.connections.close();
  }
  return {
    stats: load.stats,
    /** performance.now() when the load began (open model: the due time of its first request) */
    startedAt: load.clockStart,
    elapsedMs: performance.now() - load.clockStart,
    connectionsOpened: load.connections.opened,
    /** open model only */
    schedule,
    /** what the warm-up sent (never recorded), when there was one */
    warmup: warmed?.warmup,
  };
}
