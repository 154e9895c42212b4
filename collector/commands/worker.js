// `paasmon worker`: a load-generator instance that idles until a run is scheduled in test_runs
// with its parameters in meta (url, and requests or duration; parallel, rate, ramp, warmup, timeout,
// method, connections, start_at), drives it, and waits for the next. Changing a parameter is a new
// `paasmon run start`, never a `cf push`.
import { setTimeout as sleep } from 'node:timers/promises';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepRunFigures } from '../run-figures.js';
import { finishDrivenRun, scheduledRuns, workerDroveRun } from '../../exporters/postgres/queries/runs.js';
import { runLoad } from '../../loadgen/run.js';
import { loadgenOptions } from './flags.js';
import { serveLoadgenMetrics } from '../metrics-server.js';
import { shutdownSignal } from './shutdown.js';
import { openLoadgenRecording } from '../../exporters/postgres/sink/loadgen-rows.js';

const POLL_MS = 2000;

/** @param {Record<string, string>} meta @returns {import('./flags.js').LoadgenFlags} */
export function flagsFromMeta(meta) {
  return {
    url: meta.url,
    requests: meta.requests,
    duration: meta.duration,
    parallel: meta.parallel,
    rate: meta.rate,
    ramp: meta.ramp,
    warmup: meta.warmup,
    timeout: meta.timeout,
    method: meta.method,
    connections: meta.connections,
    startAt: meta.start_at,
    maxErrorRatio: meta.max_error_ratio,
    maxP95: meta.max_p95,
  };
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ worker?: string }} flags
 */
export function workerCommand(config, { log, out }, flags) {
  const stop = shutdownSignal();
  return withMigratedDatabase(config, log, async (pool) => {
    /** @type {Set<number>} */
    const done = new Set();
    /** @type {Awaited<ReturnType<typeof serveLoadgenMetrics>>} */
    let metrics;
    try {
      // One /metrics for the worker's life: scraped between runs too, a run's series going after the TTL.
      metrics = await serveLoadgenMetrics(config.assignedPort, config, log);
      log.info('worker: waiting for runs (paasmon run start ... --meta url=... --meta duration=60s)');
      while (!stop.signal.aborted) {
        for (const run of await scheduledRuns(pool)) {
          if (done.has(run.id) || stop.signal.aborted) continue;
          done.add(run.id);
          /** @type {import('./flags.js').LoadgenOptions} */
          let options;
          try {
            options = loadgenOptions({ ...flagsFromMeta(run.meta), worker: flags.worker }, config);
          } catch (err) {
            log.error({ runId: run.id, err }, 'worker: run parameters are invalid; run skipped');
            continue;
          }
          if (await workerDroveRun(pool, run.id, options.worker)) continue; // before a restart
          log.info({ runId: run.id, worker: options.worker, url: options.url }, 'worker: run starts');
          try {
            const recording = (/** @type {{ runId: number, worker: string }} */ r) =>
              openLoadgenRecording(pool, log, { ...r, metrics: metrics?.postgresMetrics });
            await runLoad(recording, run.id, options, { log, out, signal: stop.signal, observe: metrics?.observe });
          } finally {
            metrics?.runEnded(run.id);
            await endWhenLast(pool, run.id, stop.signal, log);
          }
        }
        await sleep(POLL_MS, undefined, { signal: stop.signal }).catch(() => {});
      }
      return 0;
    } finally {
      await metrics?.close();
      stop.dispose();
    }
  });
}

/**
 * The run ends when its load does, however that ends; with several workers, when the last one's
 * does: a worker that joined a poll later is still recording after this grace period.
 * @param {import('pg').Pool} pool @param {number} runId @param {AbortSignal} signal
 * @param {import('pino').Logger} log
 */
async function endWhenLast(pool, runId, signal, log) {
  await sleep(2 * POLL_MS + 500, undefined, { signal }).catch(() => {});
  try {
    if (await finishDrivenRun(pool, runId, 2 * POLL_MS)) {
      log.info({ runId }, 'worker: run ended');
      await keepRunFigures(pool, runId, log);
    }
  } catch (err) {
    log.warn({ err, runId }, 'worker: ending the run');
  }
}
