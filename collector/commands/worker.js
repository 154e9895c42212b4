// `paasmon worker`: a load-generator instance that idles until a run is scheduled in test_runs
// with its parameters in meta (url, and requests or duration; parallel, rate, timeout, method,
// connections, start_at), drives it, and waits for the next. Changing a parameter is a new
// `paasmon run start`, never a `cf push`.
import { migrate, openDatabase } from '../../exporters/database.js';
import { loadOptions, runLoad } from './loadgen.js';

const POLL_MS = 2000;

/** @param {Record<string, string>} meta @returns {import('./loadgen.js').LoadgenFlags} */
export function flagsFromMeta(meta) {
  return {
    url: meta.url, requests: meta.requests, duration: meta.duration, parallel: meta.parallel, rate: meta.rate,
    timeout: meta.timeout, method: meta.method, connections: meta.connections, startAt: meta.start_at,
    maxErrorRatio: meta.max_error_ratio, maxP95: meta.max_p95,
  };
}

/**
 * @param {import('../config.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ worker?: string }} flags
 * @param {Record<string, string | undefined>} env
 */
export async function workerCommand(config, { log, out }, flags, env) {
  const database = await openDatabase(config, { log });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  /** @type {Set<number>} */
  const done = new Set();
  try {
    await migrate(database.pool, log);
    log.info('worker: waiting for runs (paasmon run start ... --meta url=... --meta duration=60s)');
    while (!stop.signal.aborted) {
      const { rows } = await database.pool.query(`SELECT id, meta FROM test_runs WHERE ended_at IS NULL AND meta ? 'url' ORDER BY id`);
      for (const run of rows) {
        const runId = Number(run.id);
        if (done.has(runId) || stop.signal.aborted) continue;
        done.add(runId);
        /** @type {ReturnType<typeof loadOptions>} */
        let options;
        try {
          options = loadOptions({ ...flagsFromMeta(run.meta), worker: flags.worker }, env, config.correlationHeader);
        } catch (err) {
          log.error({ runId, err }, 'worker: run parameters are invalid; run skipped');
          continue;
        }
        const already = await database.pool.query('SELECT 1 FROM loadgen_requests WHERE run_id = $1 AND worker = $2 LIMIT 1', [runId, options.worker]);
        if (already.rowCount) continue; // this worker drove the run before a restart
        log.info({ runId, worker: options.worker, url: options.url }, 'worker: run starts');
        await runLoad(database.pool, runId, options, { config, log, out, env, signal: stop.signal });
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        stop.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); }, { once: true });
      });
    }
    return 0;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await database.close();
  }
}
