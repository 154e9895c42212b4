// `paasmon loadgen`: one load run from the command line, recorded into a run (given, or new),
// with /metrics while it runs when asked (or when Cloud Foundry gives the app a $PORT).
import { once } from 'node:events';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { getRun, startRun } from '../../exporters/postgres/queries/runs.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { runLoad } from '../../loadgen/run.js';
import { createHttpServer } from '../metrics-server.js';
import { loadgenOptions, numberFlag } from './flags.js';

/**
 * /metrics of the load generator while it runs. Undefined when no port is asked for.
 * @param {number | undefined} port @param {import('../config/index.js').Config} config
 * @param {import('pino').Logger} log
 */
export async function serveLoadgenMetrics(port, config, log) {
  if (port === undefined) return undefined;
  const sink = createPrometheusSink();
  const server = createHttpServer({
    registry: sink.registry,
    bearerToken: config.metricsBearerToken,
    log,
    health: async () => ({ healthy: true, body: { status: 'ok', source: 'loadgen' } }),
  });
  server.listen(port);
  await once(server, 'listening');
  log.info(
    { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port },
    'loadgen: serving /metrics',
  );
  return {
    /** @param {import('../../core/types.js').LoadgenRequest} request */
    observe: (request) => sink.write([request]),
    /** @param {number} run */
    recordWait: (run) => sink.countRecordWait(run),
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

/** A live progress line on a terminal, rewritten in place. */
export function terminalProgress() {
  return process.stderr.isTTY ? (/** @type {string} */ line) => process.stderr.write(`\r${line}`) : undefined;
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {import('./flags.js').LoadgenFlags} flags
 * @returns {Promise<number>}
 */
export function loadgenCommand(config, { log, out }, flags) {
  const options = loadgenOptions(flags, config);
  const metricsPort = numberFlag(flags.metricsPort, '--metrics-port', { integer: true }) ?? config.assignedPort;
  return withMigratedDatabase(config, log, async (pool) => {
    let runId = options.runId;
    if (runId === undefined) {
      const target = new URL(options.url);
      runId = await startRun(pool, {
        label: `loadgen ${target.host}`,
        appName: target.hostname.split('.')[0],
        parallel: options.parallel,
      });
      out(`run ${runId} started`);
    } else if (!(await getRun(pool, runId))) {
      throw new ConfigError(`run ${runId} does not exist (paasmon run start prints a run id)`, {
        variable: flags.run ? '--run' : 'RUN_ID',
      });
    }
    const metrics = await serveLoadgenMetrics(metricsPort, config, log);
    const progress = terminalProgress();
    try {
      const recordWait = metrics ? () => metrics.recordWait(/** @type {number} */ (runId)) : undefined;
      return await runLoad(pool, runId, options, { log, out, observe: metrics?.observe, progress, recordWait });
    } finally {
      if (progress) process.stderr.write('\n');
      await metrics?.close();
    }
  });
}
