// `paasmon loadgen`: one load run from the command line, recorded into a run (given, or new),
// with /metrics while it runs when asked (or when Cloud Foundry gives the app a $PORT).
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepRunFigures } from '../run-figures.js';
import { finishRun, getRun, startRun } from '../../exporters/postgres/queries/runs.js';
import { runLoad } from '../../loadgen/run.js';
import { serveLoadgenMetrics } from '../metrics-server.js';
import { loadgenOptions, numberFlag } from './flags.js';
import { shutdownSignal } from './shutdown.js';
import { openLoadgenRecording } from '../../exporters/postgres/sink/loadgen-rows.js';

/** A live progress line on a terminal, rewritten in place. */
export function terminalProgress() {
  return process.stderr.isTTY ? (/** @type {string} */ line) => process.stderr.write(`\r${line}`) : undefined;
}

/**
 * Ctrl-C (or SIGTERM) stops sending: the requests in flight finish, the summary of what was done
 * is printed, everything recorded is written and a run this command created is ended; the exit
 * code is then 130 (143 for SIGTERM), so a script can tell an interrupted run from a complete one.
 * A second Ctrl-C quits at once.
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} ctx
 * @param {import('./flags.js').LoadgenFlags & { app?: string, label?: string }} flags
 * @returns {Promise<number>}
 */
export function loadgenCommand(config, { log, out, err }, flags) {
  const options = loadgenOptions(flags, config);
  const metricsPort = numberFlag(flags.metricsPort, '--metrics-port', { integer: true }) ?? config.assignedPort;
  if (options.runId !== undefined && (flags.app !== undefined || flags.label !== undefined)) {
    throw new ConfigError('--app and --label describe the run loadgen creates; they do not go with --run or RUN_ID', {
      variable: flags.app !== undefined ? '--app' : '--label',
    });
  }
  return withMigratedDatabase(config, log, async (pool) => {
    // Before a run is created: a port in use must not leave a run behind.
    const metrics = await serveLoadgenMetrics(metricsPort, config, log);
    try {
      const runId = options.runId ?? (await createRun(pool, options, flags, out));
      if (options.runId !== undefined && !(await getRun(pool, runId))) {
        throw new ConfigError(`run ${runId} does not exist (paasmon run start prints a run id)`, {
          variable: flags.run ? '--run' : 'RUN_ID',
        });
      }
      const created = options.runId === undefined;
      try {
        const recordWait = metrics ? () => metrics.recordWait(runId) : undefined;
        const ctx = { log, out, err, observe: metrics?.observe, recordWait, postgresMetrics: metrics?.postgresMetrics };
        return await driveRun(pool, runId, created, options, ctx);
      } finally {
        // However the load ended (done, interrupted, failed), a run this command created is ended.
        if (created) {
          await finishRun(pool, runId).catch((e) => log.warn({ err: e, runId }, 'loadgen: ending the run'));
          await keepRunFigures(pool, runId, log);
        }
      }
    } finally {
      await metrics?.close();
    }
  });
}

/**
 * @param {import('pg').Pool} pool @param {import('./flags.js').LoadgenOptions} options
 * @param {{ app?: string, label?: string }} flags @param {(line: string) => void} out
 */
async function createRun(pool, options, flags, out) {
  const runId = await startRun(pool, {
    label: flags.label ?? `loadgen ${new URL(options.url).host}`,
    appName: flags.app,
    parallel: options.rate === undefined ? options.parallel : undefined,
  });
  out(`run ${runId} started${flags.app ? '' : " (no --app: the app's CPU and memory do not join this run)"}`);
  return runId;
}

/**
 * The load, with its progress line on a terminal and Ctrl-C handled as described above.
 * @param {import('pg').Pool} pool @param {number} runId @param {boolean} created
 * @param {import('./flags.js').LoadgenOptions} options
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void,
 *   observe?: (request: import('../../core/types.js').LoadgenRequest) => void, recordWait?: () => void,
 *   postgresMetrics?: import('../../exporters/postgres/sink/page-writer.js').PostgresMetrics }} ctx
 *   postgresMetrics: the run's recording counts into it
 */
async function driveRun(pool, runId, created, options, { log, out, err, observe, recordWait, postgresMetrics }) {
  const progress = terminalProgress();
  /** @type {string | undefined} */
  let interrupted;
  const stop = shutdownSignal((signal) => {
    interrupted = signal;
    if (progress) process.stderr.write('\n');
    err(`paasmon: ${signal}: stopping; waiting for the requests in flight (press Ctrl-C again to quit at once)`);
  });
  try {
    const ctx = { log, out, signal: stop.signal, observe, progress, recordWait };
    const record = (/** @type {{ runId: number, worker: string }} */ run) =>
      openLoadgenRecording(pool, log, { ...run, metrics: postgresMetrics });
    const code = await runLoad(record, runId, options, ctx);
    out(nextSteps(runId, created));
    if (interrupted) return interrupted === 'SIGINT' ? 130 : 143;
    return code;
  } finally {
    stop.dispose();
    if (progress && !interrupted) process.stderr.write('\n');
  }
}

/** What to run next, once the load is done. @param {number} runId @param {boolean} created */
function nextSteps(runId, created) {
  const stop = created ? '' : `paasmon run stop ${runId} (when every load generator is done); `;
  return `next: ${stop}paasmon ingest (router logs of the run); paasmon correlate --run ${runId}`;
}
