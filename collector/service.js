// `paasmon collect`: migrate, schedule the sources, serve /metrics and the health endpoints, shut down cleanly.
import { once } from 'node:events';
import { requireCloudController } from './config/index.js';
import { healthChecks } from './health.js';
import { createHttpServer, watchEventLoop } from './metrics-server.js';
import { recentCorrelationCounts } from '../exporters/postgres/queries/correlation.js';
import { EXPECTED_SKIPS, describeVerdict, ingestFileIncrement, ingestIncrement } from './pipeline/ingest.js';
import { createSkippedWindow } from './pipeline/skipped-window.js';
import { createJob } from './pipeline/job.js';
import { createPoller } from './pipeline/poller.js';
import { createSharing } from './pipeline/claims.js';
import { schedule } from './pipeline/schedule.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCloudControllerSource } from './sources/cloud-controller/index.js';
import { createRouterLogSource } from './sources/router-logs/index.js';
import { headerLogField } from './sources/router-logs/correlation-ids.js';
import { drainConfigured, startDrain } from './sources/syslog-drain/index.js';
import { ingestApps } from './sources/log-cache/index.js';
import { SourceError } from '../core/errors.js';
import { openDatabase, unreachable } from '../exporters/postgres/database.js';
import { migrateUntilDone } from '../exporters/postgres/migrate.js';
import { startRetentionJob } from './commands/prune.js';
import { createPostgresSink } from '../exporters/postgres/sink.js';
import { createPrometheusSink } from '../exporters/prometheus.js';

const SHUTDOWN_BUDGET_MS = 10_000;
/** After this long a poll in flight at shutdown is aborted, leaving time to flush and close. */
const POLL_GRACE_MS = 5_000;

/**
 * @typedef {{ records: import('../core/types.js').InstanceSample[], complete: boolean, error: Error | undefined,
 *   durationMs: number }} PollOutcome
 */

/**
 * @param {import('./config/index.js').Config} config
 * @param {{ log: import('pino').Logger, onPoll?: (outcome: PollOutcome) => void }} deps onPoll: after every poll
 * @returns {Promise<{ port: number, drainTcpPort: number | undefined, failed: Promise<Error>,
 *   stop: () => Promise<void> }>} failed: resolves with an error that must end `collect` (a migration the
 *   database refused), never while it runs well
 */
export async function startCollector(config, { log, onPoll }) {
  requireCloudController(config);
  const withDrain = drainConfigured(config);
  const abort = new AbortController();
  const prometheus = createPrometheusSink();
  const { self } = prometheus;
  const database = await openDatabase(config, { log });
  let dropped = 0;
  const postgres = createPostgresSink({
    pool: database.pool,
    log,
    maxBuffered: config.dbBufferRecords,
    onChange: (e) => {
      self.dbPending.set(e.pending);
      if (e.dropped > dropped) self.dbDropped.inc(e.dropped - dropped);
      dropped = e.dropped;
    },
  });
  /** @type {(err: Error) => void} */
  let fail = () => {};
  const failed = /** @type {Promise<Error>} */ (new Promise((resolve) => (fail = resolve)));
  // A migration the database refused ends `collect` (through `failed`); the sources then see no schema.
  const schemaReady = migrateUntilDone(database.pool, log, abort.signal).catch((err) => {
    fail(/** @type {Error} */ (unreachable(err, config)));
    return false;
  });

  const sharing = createSharing(config, { pool: database.pool, schemaReady });
  const source = sharing.share(
    createCloudControllerSource(config, {
      log,
      onRetry: (reason) => self.retries.inc({ source: 'cloud-controller', reason }),
      claimApps: sharing.claimApps,
    }),
  );
  const poller = createPoller({ source, sinks: [prometheus, postgres], metrics: self, log, signal: abort.signal });
  const job = schedule(poller, config.pollSchedule, {
    // Written in the background: a slow or absent database must not delay or skip polls.
    afterPoll: (/** @type {PollOutcome} */ outcome) => {
      onPoll?.(outcome);
      void schemaReady.then(async (ok) => {
        if (ok) await postgres.flush();
      });
    },
  });
  // Partitions of the coming days, and RETENTION (collector/commands/prune.js).
  const retention = startRetentionJob(database.pool, config.retentionMs, log, schemaReady);
  const startedAt = Date.now();
  const ingestDeps = { log, prometheus, pool: database.pool, schemaReady, signal: abort.signal, sharing };
  const routerLogs = config.search.url ? startRouterLogIngest(config, ingestDeps) : undefined;
  const routerLogFile = config.routerLogFile.path ? startRouterLogFileIngest(config, ingestDeps) : undefined;
  const drain = withDrain
    ? await startDrain(config, {
        pool: database.pool,
        schemaReady,
        log,
        metrics: {
          count: prometheus.observeDrain,
          buffered: prometheus.setDrainBuffered,
          observeRouterRequests: (inserted) => prometheus.write(inserted),
        },
      })
    : undefined;
  const logCache = config.logCache.url
    ? startLogCacheIngest(config, {
        log,
        prometheus,
        pool: database.pool,
        schemaReady,
        signal: abort.signal,
        cloudController: source,
        sharing,
      })
    : undefined;

  const loop = watchEventLoop();
  const checks = healthChecks({
    config,
    database,
    postgres,
    poller,
    pollSchedule: job,
    routerIngests: [routerLogs, routerLogFile],
    logCache,
    drain,
    startedAt,
  });
  const server = createHttpServer({
    registry: prometheus.registry,
    bearerToken: config.metricsBearerToken,
    log,
    routes: drain?.handler ? { '/drain': drain.handler } : {},
    health: checks.health,
    live: loop.check,
    ready: checks.ready,
  });
  server.listen(config.port);
  await once(server, 'listening');
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  log.info(
    {
      port,
      schedule: config.pollSchedule,
      apps: config.cf.apps,
      database: database.source,
      drainTcpPort: drain?.tcpPort,
    },
    'collect: started',
  );

  let stopping;
  return {
    port,
    drainTcpPort: drain?.tcpPort,
    failed,
    stop() {
      stopping ??= (async () => {
        const deadline = Date.now() + SHUTDOWN_BUDGET_MS - 1000;
        const grace = setTimeout(() => abort.abort(new Error('shutting down')), POLL_GRACE_MS);
        await Promise.all([
          job.stop(),
          routerLogs?.schedule.stop(),
          logCache?.schedule.stop(),
          routerLogFile?.schedule.stop(),
        ]);
        clearTimeout(grace);
        abort.abort(new Error('shutting down'));
        server.close();
        server.closeAllConnections();
        loop.stop();
        if (drain) await Promise.race([drain.stop(), sleep(Math.max(0, deadline - Date.now()))]);
        if (await schemaReady) {
          await Promise.race([postgres.close(), sleep(Math.max(0, deadline - Date.now()))]);
        }
        if (postgres.pending > 0) log.error({ lost: postgres.pending }, 'collect: records not written at shutdown');
        await retention.stop();
        await source.close?.();
        await routerLogs?.source.close();
        await database.close();
        log.info('collect: stopped');
      })();
      return stopping;
    },
  };
}

/**
 * @typedef {object} RouterLogIngestDeps
 * @property {import('pino').Logger} log
 * @property {import('../exporters/prometheus.js').PrometheusSink} prometheus
 * @property {import('pg').Pool} pool
 * @property {Promise<boolean>} schemaReady
 * @property {AbortSignal} signal
 * @property {import('./pipeline/claims.js').Sharing} sharing one collector at a time holds each reader
 */

/**
 * The incremental router-log ingest from the search server on INGEST_SCHEDULE.
 * @param {import('./config/index.js').Config} config @param {RouterLogIngestDeps} deps
 */
function startRouterLogIngest(config, deps) {
  const source = createRouterLogSource(config, {
    log: deps.log,
    onRetry: (reason) => deps.prometheus.self.retries.inc({ source: 'router-logs', reason }),
  });
  const ingest = scheduleIngest(config, source.name, deps, async (ctx) => {
    const result = await ingestIncrement(
      source,
      { now: ctx.now, delayMs: config.ingestDelayMs, lookbackMs: config.ingestLookbackMs, signal: ctx.signal },
      { pool: deps.pool, metrics: deps.prometheus, warn: ctx.warn },
    );
    deps.prometheus.setIngestLag((Date.now() - Date.parse(/** @type {string} */ (result.to))) / 1000);
    return result;
  });
  return { source, ...ingest };
}

/**
 * ROUTER_LOG_FILE followed as it grows, on INGEST_SCHEDULE: each run reads the complete lines
 * after the position it reached last time.
 * @param {import('./config/index.js').Config} config @param {RouterLogIngestDeps} deps
 */
function startRouterLogFileIngest(config, deps) {
  const file = /** @type {string} */ (config.routerLogFile.path);
  const options = { appName: config.routerLogFile.appName, correlationHeader: config.correlationHeader };
  return scheduleIngest(
    config,
    'router-log-file',
    deps,
    (ctx) => ingestFileIncrement(file, options, { pool: deps.pool, metrics: deps.prometheus, warn: ctx.warn }),
    EXPECTED_SKIPS.lines,
  );
}

/**
 * A router-log ingest job on INGEST_SCHEDULE, once the schema is in place.
 * @param {import('./config/index.js').Config} config @param {string} name @param {RouterLogIngestDeps} deps
 * @param {(ctx: import('../core/types.js').PollContext) => Promise<import('./pipeline/ingest.js').IngestResult>} ingest
 * @param {readonly string[]} [expected] skip reasons that are not a loss (EXPECTED_SKIPS)
 */
function scheduleIngest(config, name, { log, prometheus, pool, schemaReady, signal, sharing }, ingest, expected) {
  // Judged on the source's recent increments (skipped-window.js), never on another source's.
  const recent = createSkippedWindow({ maxRatio: config.ingestMaxSkippedRatio, expected });
  const job = createJob({
    name,
    metrics: prometheus.self,
    log,
    signal,
    work: sharing.holdReader(name, async (ctx) => {
      if (!(await schemaReady)) return { records: 0 };
      const result = await ingest(ctx);
      recent.add(result);
      prometheus.showSkipped(name, result.skipped, recent.ratio());
      const tooMany = result.skipped.size ? recent.verdict() : undefined;
      if (tooMany) ctx.log.warn({ reason: tooMany.reason }, describeVerdict(tooMany, config.ingestMaxSkippedRatio));
      // New router rows may complete the correlation of recent runs (the views are live; the counter
      // is not). Counted only when rows came in, and for runs open or ended within the hour: each
      // run costs a pass over its requests, and a poll must not outlast the schedule.
      if (result.inserted > 0) prometheus.setCorrelationCounts(await recentCorrelationCounts(pool, 1));
      return result;
    }),
  });
  return { job, schedule: schedule(job, config.ingestSchedule), lastVerdict: recent.verdict };
}

/**
 * The Log Cache ingest on LOG_CACHE_SCHEDULE: the watched apps and the UAA token of the Cloud Controller.
 * @param {import('./config/index.js').Config} config
 * @param {RouterLogIngestDeps & { cloudController: ReturnType<typeof createCloudControllerSource> }} deps
 */
function startLogCacheIngest(config, { log, prometheus, pool, schemaReady, signal, cloudController, sharing }) {
  const { client } = cloudController;
  const correlationField = headerLogField(config.correlationHeader);
  const job = createJob({
    name: 'log-cache',
    metrics: prometheus.self,
    log,
    signal,
    work: sharing.holdReader('log-cache', async (ctx) => {
      if (!(await schemaReady)) return { records: 0 };
      const auto = config.logCache.url === 'auto';
      const baseUrl = auto ? (await client.discovery(ctx.signal)).logCacheUrl : config.logCache.url;
      if (!baseUrl) {
        throw new SourceError('log-cache: the Cloud Controller root lists no log_cache link; set LOG_CACHE_URL', {
          reason: 'discovery',
        });
      }
      const apps = await cloudController.watchedApps(ctx);
      const options = { now: ctx.now, lookbackMs: config.logCache.lookbackMs, correlationField, signal: ctx.signal };
      return ingestApps(apps, options, {
        pool,
        baseUrl,
        metrics: prometheus,
        warn: ctx.warn,
        get: async (url, s) => (await client.get(url, s)).data,
      });
    }),
  });
  return { job, schedule: schedule(job, config.logCache.schedule) };
}
