// One load run: waits for the start time, generates the load, records every request, prints the
// summary and applies the pass/fail checks. Used by `paasmon loadgen` and by the worker.
import { setTimeout as sleep } from 'node:timers/promises';
import { generateLoad } from './generate.js';
import { createRecorder } from './recorder.js';
import { formatProgress, formatSchedule, formatSummary, formatWaits, formatWarmup } from './summary.js';
import { summaryJson, writeSummary } from './summary-export.js';

/**
 * @typedef {object} RunChecks
 * @property {number} [maxErrorRatio] fail when more requests than this fraction failed
 * @property {number} [maxP95Ms] fail when p95 is slower
 *
 * @typedef {import('./generate.js').LoadOptions & RunChecks & { startAt?: string, worker: string,
 *   summaryExport?: string }} RunOptions summaryExport: a file for the summary as JSON
 *
 * @typedef {object} RunContext
 * @property {import('pino').Logger} log
 * @property {(line: string) => void} out the summary
 * @property {AbortSignal} [signal] stops sending (the run still ends with its summary)
 * @property {(request: import('../core/types.js').LoadgenRequest) => void} [observe] e.g. Prometheus
 * @property {(line: string) => void} [progress] a live line every second
 * @property {() => void} [recordWait] the recorder made the generator wait (e.g. a Prometheus counter)
 */

/**
 * @param {(run: { runId: number, worker: string }) => import('./recorder.js').Recording} openRecording
 *   where the run's requests are written
 * @param {number} runId @param {RunOptions} options @param {RunContext} ctx
 * @returns {Promise<number>} exit code: 1 when a check failed
 */
export async function runLoad(openRecording, runId, options, { log, out, signal, observe, progress, recordWait }) {
  if (options.startAt) {
    const waitMs = Date.parse(options.startAt) - Date.now();
    if (waitMs > 0) {
      log.info({ startAt: options.startAt, worker: options.worker }, 'loadgen: waiting for the start time');
      // Aborted while waiting: the load below sends nothing and the run ends at once.
      await sleep(waitMs, undefined, { signal }).catch(() => {});
    }
  }
  const recorder = createRecorder({ recording: openRecording({ runId, worker: options.worker }), onWait: recordWait });
  /** @type {import('./generate.js').LoadHooks['record']} */
  const record = observe
    ? (correlationId, startedAtMs, durationMs, status, error) => {
        const startedAt = new Date(startedAtMs);
        observe({ kind: 'loadgen_request', runId, correlationId, startedAt, durationMs, status, error });
        return recorder.record(correlationId, startedAtMs, durationMs, status, error);
      }
    : recorder.record;
  const { stats, elapsedMs, connectionsOpened, schedule, warmup } = await generateLoad(options, {
    signal,
    record,
    onProgress: progress
      ? (s, elapsed) => progress(`${timeLeft(options, s.count, elapsed)}  ${formatProgress(s, elapsed)}`)
      : undefined,
  });
  // The summary of what was done comes first, even when some requests could not be written.
  const unwritten = await recorder.close().then(
    () => undefined,
    (err) => err,
  );
  if (warmup) out(formatWarmup(warmup.stats, warmup.elapsedMs, runId));
  out(formatSummary(stats, elapsedMs));
  if (options.rate) {
    out(formatSchedule(stats, { ...options, rate: options.rate, connectionsOpened, schedule }));
  }
  out(`\nrun ${runId}, worker ${options.worker}: ${recorder.written} requests recorded${formatWaits(recorder.waits)}`);
  if (options.summaryExport) {
    writeSummary(options.summaryExport, summaryJson(stats, elapsedMs, { ...options, runId, schedule, warmup }));
  }
  if (unwritten) throw unwritten;
  const broken = failedChecks(stats, options);
  for (const line of broken) out(`FAILED: ${line}`);
  return broken.length ? 1 : 0;
}

/** @param {import('./stats.js').Stats} stats @param {RunChecks} checks @returns {string[]} */
export function failedChecks(stats, checks) {
  const broken = [];
  const errorRatio = stats.count ? stats.errorCount / stats.count : 0;
  if (checks.maxErrorRatio !== undefined && errorRatio > checks.maxErrorRatio) {
    broken.push(`error ratio ${errorRatio.toFixed(4)} > --max-error-ratio ${checks.maxErrorRatio}`);
  }
  const p95 = stats.percentile(95);
  if (checks.maxP95Ms !== undefined && p95 > checks.maxP95Ms) {
    broken.push(`p95 ${p95.toFixed(2)} ms > --max-p95 ${checks.maxP95Ms} ms`);
  }
  return broken;
}

/**
 * Elapsed and what is left, for the progress line: time with --duration, requests with --requests.
 * @param {import('./generate.js').LoadOptions} options @param {number} sent @param {number} elapsedMs
 */
export function timeLeft(options, sent, elapsedMs) {
  const seconds = (/** @type {number} */ ms) => `${Math.max(0, Math.round(ms / 1000))}s`;
  const left =
    options.durationMs !== undefined
      ? `${seconds(options.durationMs - elapsedMs)} left`
      : `${Math.max(0, (options.requests ?? 0) - sent)} requests left`;
  return `${seconds(elapsedMs)} elapsed, ${left}`;
}
