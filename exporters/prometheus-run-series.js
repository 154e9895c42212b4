// Series labelled with a run leave /metrics a while after the run's load ended here: long enough for
// Prometheus to scrape their last values, so a long-lived worker shows its live runs only (the runs'
// history is in PostgreSQL). Only prom-client's public API: get() to list a metric's series, remove().

/**
 * @typedef {object} RunSeriesExpiry
 * @property {(run: number) => void} ended this process's load for the run ended: its series go after the TTL
 * @property {() => Promise<number>} expire removes the series of every run whose TTL passed; how many runs
 * @property {() => void} close stops the timers (the series stay)
 */

/** METRICS_RUN_SERIES_TTL's default: a run's series stay this long after its load ended. */
export const RUN_SERIES_TTL_MS = 5 * 60_000;

/**
 * @param {Array<import('prom-client').Counter<string> | import('prom-client').Histogram<string>>} metrics
 *   the metrics with a `run` label
 * @param {{ runSeriesTtlMs?: number, now?: () => number, log?: import('pino').Logger }} [options]
 *   now: the clock of the TTL (tests move it)
 * @returns {RunSeriesExpiry}
 */
export function createRunSeriesExpiry(
  metrics,
  { runSeriesTtlMs: ttlMs = RUN_SERIES_TTL_MS, now = Date.now, log } = {},
) {
  /** @type {Map<string, number>} run -> when its series go (ms) */
  const due = new Map();
  /** @type {Set<NodeJS.Timeout>} */
  const timers = new Set();

  async function expire() {
    const at = now();
    const gone = [...due].filter(([, when]) => when <= at).map(([run]) => run);
    if (gone.length === 0) return 0;
    for (const run of gone) due.delete(run);
    const runs = new Set(gone);
    for (const metric of metrics) {
      const { values } = await metric.get();
      for (const { labels } of values) {
        if (!runs.has(String(labels.run))) continue;
        // A histogram lists each bucket with its `le`; the series itself is the labels without it.
        const series = { ...labels };
        delete series.le;
        metric.remove(/** @type {Record<string, string | number>} */ (series));
      }
    }
    return gone.length;
  }

  /**
   * A timer may fire a little before the clock says the TTL passed: then it is set again.
   * @param {string} run @param {number} ms
   */
  function later(run, ms) {
    const timer = setTimeout(async () => {
      timers.delete(timer);
      await expire().catch((err) => log?.warn({ err, run }, "prometheus: removing a run's series"));
      const when = due.get(run);
      if (when !== undefined) later(run, Math.max(1, when - now()));
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  return {
    ended(run) {
      due.set(String(run), now() + ttlMs);
      later(String(run), ttlMs);
    },
    expire,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
