// `paasmon collect`: migrate, run the jobs the configuration asks for (collector/jobs.js), serve
// /metrics and the health endpoints, shut down cleanly.
import { once } from 'node:events';
import { requireCloudController } from './config/index.js';
import { healthChecks } from './health.js';
import { collectorJobs } from './jobs.js';
import { createHttpServer, metricsAccess, watchEventLoop } from './metrics-server.js';
import { startJobs, withDeadline } from './pipeline/run-jobs.js';
import { drainConfigured } from './sources/syslog-drain/index.js';
import { POLL_GRACE_MS, SHUTDOWN_BUDGET_MS } from '../core/tunables.js';
import { openDatabase, unreachable } from '../exporters/postgres/database.js';
import { migrateUntilDone } from '../exporters/postgres/schema/migrate.js';
import { createPostgresSink } from '../exporters/postgres/sink/sink.js';
import { createPrometheusSink } from '../exporters/prometheus.js';

/** @typedef {import('./jobs.js').PollOutcome} PollOutcome */

/**
 * @param {import('./config/index.js').Config} config
 * @param {{ log: import('pino').Logger, onPoll?: (outcome: PollOutcome) => void }} deps onPoll: after every poll
 * @returns {Promise<{ port: number, drainTcpPort: number | undefined, failed: Promise<Error>,
 *   stop: () => Promise<void> }>} failed: resolves with an error that must end `collect` (a migration the
 *   database refused), never while it runs well
 */
export async function startCollector(config, { log, onPoll }) {
  requireCloudController(config);
  // Settings that cannot work fail before the database opens.
  drainConfigured(config);
  const abort = new AbortController();
  const prometheus = createPrometheusSink();
  const database = await openDatabase(config, { log });
  const postgres = samplesSink(database.pool, config, prometheus, log);
  /** @type {(err: Error) => void} */
  let fail = () => {};
  const failed = /** @type {Promise<Error>} */ (new Promise((resolve) => (fail = resolve)));
  // A migration the database refused ends `collect` (through `failed`); the sources then see no schema.
  const schemaReady = migrateUntilDone(database.pool, log, abort.signal).catch((err) => {
    fail(/** @type {Error} */ (unreachable(err, config)));
    return false;
  });
  const deps = { log, prometheus, postgres, pool: database.pool, schemaReady, signal: abort.signal, onPoll };
  const jobs = collectorJobs(config, deps);
  const running = await startJobs(jobs);
  const drain = /** @type {import('./sources/syslog-drain/index.js').Drain | undefined} */ (
    running.startedOf(jobs.find((job) => job.name === 'syslog-drain'))
  );
  const loop = watchEventLoop();
  const checks = healthChecks({
    config,
    database,
    postgres,
    ...jobHealth(jobs, running),
    drain,
    startedAt: Date.now(),
  });
  const server = createHttpServer({
    registry: prometheus.registry,
    ...metricsAccess(config),
    log,
    routes: drain?.handler ? { '/drain': drain.handler } : {},
    health: checks.health,
    live: loop.check,
    ready: checks.ready,
  });
  server.listen(config.port);
  await once(server, 'listening');
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const { pollSchedule: schedule, cf } = config;
  log.info(
    { port, schedule, apps: cf.apps, database: database.source, drainTcpPort: drain?.tcpPort },
    'collect: started',
  );

  let stopping;
  const stop = async () => {
    const deadline = Date.now() + SHUTDOWN_BUDGET_MS - 1000;
    const grace = setTimeout(() => abort.abort(new Error('shutting down')), POLL_GRACE_MS);
    await running.stopSchedules();
    clearTimeout(grace);
    abort.abort(new Error('shutting down'));
    server.close();
    server.closeAllConnections();
    loop.stop();
    await running.close(deadline);
    if (await schemaReady) await withDeadline(postgres.close(), deadline);
    if (postgres.pending > 0) log.error({ lost: postgres.pending }, 'collect: records not written at shutdown');
    await database.close();
    log.info('collect: stopped');
  };
  return { port, drainTcpPort: drain?.tcpPort, failed, stop: () => (stopping ??= stop()) };
}

/**
 * The instance samples' PostgreSQL sink, its backlog shown in the self metrics.
 * @param {import('pg').Pool} pool @param {import('./config/index.js').Config} config
 * @param {import('../exporters/prometheus.js').PrometheusSink} prometheus @param {import('pino').Logger} log
 */
function samplesSink(pool, config, { self, postgresMetrics: metrics }, log) {
  let dropped = 0;
  return createPostgresSink({
    pool,
    log,
    maxBuffered: config.dbBufferRecords,
    metrics,
    onChange: (e) => {
      self.dbPending.set(e.pending);
      if (e.dropped > dropped) self.dbDropped.inc(e.dropped - dropped);
      dropped = e.dropped;
    },
  });
}

/**
 * The scheduled jobs as /healthz reports them.
 * @param {import('./jobs.js').CollectorJob[]} jobs @param {Awaited<ReturnType<typeof startJobs>>} running
 */
function jobHealth(jobs, running) {
  const view = (/** @type {import('./jobs.js').CollectorJob} */ job) => ({
    job: /** @type {import('./pipeline/job.js').Job} */ (job.run),
    schedule: { intervalMs: running.intervalOf(job) },
    lastVerdict: job.lastVerdict,
  });
  const poll = /** @type {import('./jobs.js').CollectorJob} */ (jobs.find((job) => job.role === 'poll'));
  return {
    poller: view(poll).job,
    pollSchedule: view(poll).schedule,
    routerIngests: jobs.filter((job) => job.role === 'router-ingest').map(view),
  };
}
