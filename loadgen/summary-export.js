// `loadgen --summary-export FILE`: the run's summary as JSON, as k6's --summary-export, for
// scripts and CI. Latencies in ms at full precision; percentiles from the HDR histogram (3
// significant digits), min, max and mean exact.
import fs from 'node:fs';
import { BUCKET_BOUNDS_MS } from './stats.js';
import { sentRate } from './summary.js';

/**
 * @param {import('./stats.js').Stats} stats @param {number} elapsedMs
 * @param {{ runId: number, worker: string, url: string, rate?: number, rampMs?: number, parallel: number,
 *   schedule?: import('./generate.js').ScheduleTally,
 *   warmup?: { stats: import('./stats.js').Stats, elapsedMs: number } }} run
 */
export function summaryJson(stats, elapsedMs, run) {
  let cumulative = 0;
  const histogram = stats.buckets.map((n, i) => {
    cumulative += n;
    return { le_ms: i < BUCKET_BOUNDS_MS.length ? BUCKET_BOUNDS_MS[i] : '+Inf', count: cumulative };
  });
  return {
    run_id: run.runId,
    worker: run.worker,
    url: run.url,
    model: run.rate ? 'open' : 'closed',
    rate_per_s: run.rate ?? null,
    // Open model: the ramp, requests due and sent, and the rate sent (at full rate after a ramp).
    ramp_s: run.rate ? (run.rampMs ?? 0) / 1000 : null,
    scheduled: run.schedule?.scheduled ?? null,
    sent: run.schedule?.sent ?? null,
    sent_per_s: sentRate(run.schedule) ?? null,
    parallel: run.rate ? null : run.parallel,
    // The warm-up before the run (not in any figure below): requests sent and how long, or null.
    warmup: run.warmup ? { requests: run.warmup.stats.count, elapsed_s: run.warmup.elapsedMs / 1000 } : null,
    requests: stats.count,
    errors: stats.errorCount,
    elapsed_s: elapsedMs / 1000,
    requests_per_s: elapsedMs > 0 ? stats.count / (elapsedMs / 1000) : 0,
    latency_ms: {
      min: stats.minMs,
      mean: stats.meanMs,
      stddev: stats.stddevMs,
      p50: stats.percentile(50),
      p90: stats.percentile(90),
      p95: stats.percentile(95),
      p99: stats.percentile(99),
      'p99.9': stats.percentile(99.9),
      max: stats.maxMs,
    },
    // Cumulative, as Prometheus's le buckets: requests that took at most le_ms.
    histogram,
    status_codes: Object.fromEntries([...stats.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => [String(s), n])),
    errors_by_kind: Object.fromEntries(stats.errors),
  };
}

/** @param {string} file @param {ReturnType<typeof summaryJson>} summary */
export function writeSummary(file, summary) {
  fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
}
