// The jobs of `paasmon collect`, built from configuration: one per configured source. A polled
// source (Cloud Controller) and the paged ones (search, file, Log Cache) run on a schedule; the
// syslog drain runs when the platform pushes. pipeline/run-jobs.js starts and stops them all.
import { recentCorrelationCounts } from '../exporters/postgres/queries/correlation.js';
import { createPageWriter } from '../exporters/postgres/sink/page-writer.js';
import { SourceError } from '../core/errors.js';
import { LOG_CACHE } from '../core/reason-codes.js';
import { describeVerdict, EXPECTED_SKIPS, ingestFileIncrement, ingestIncrement } from './pipeline/ingest.js';
import { createSharing } from './pipeline/claims.js';
import { createJob } from './pipeline/job.js';
import { ingestLogCache } from './pipeline/log-cache.js';
import { createPoller } from './pipeline/poller.js';
import { pushedPages } from './pipeline/pushed-pages.js';
import { createSkippedWindow } from './pipeline/skipped-window.js';
import { createCloudControllerSource } from './sources/cloud-controller/index.js';
import { headerLogField } from './sources/router-logs/correlation-ids.js';
import { createRouterLogSource } from './sources/router-logs/index.js';
import { drainConfigured, startDrain } from './sources/syslog-drain/index.js';
import { startFiguresJob } from './run-figures.js';
import { startRetentionJob } from './retention-job.js';

/**
 * A job: its name, a schedule or a trigger, its run, its close (pipeline/run-jobs.js LoopJob), and
 * how /healthz reports it.
 * @typedef {import('./pipeline/run-jobs.js').LoopJob & CollectorJobHealth} CollectorJob
 *
 * @typedef {object} CollectorJobHealth
 * @property {() => import('./pipeline/skips.js').SkippedVerdict | undefined} [lastVerdict] why the job's recent
 *   runs skipped too much
 * @property {'poll' | 'router-ingest' | 'log-cache'} [role] how /healthz reports it
 */

/**
 * @typedef {{ records: import('../core/types.js').InstanceSample[], complete: boolean, error: Error | undefined,
 *   durationMs: number }} PollOutcome
 */

/**
 * @typedef {object} JobDeps
 * @property {import('pino').Logger} log
 * @property {import('../exporters/prometheus.js').PrometheusSink} prometheus
 * @property {import('../core/types.js').Sink} postgres the samples' sink
 * @property {import('pg').Pool} pool
 * @property {Promise<boolean>} schemaReady
 * @property {AbortSignal} signal
 * @property {(outcome: PollOutcome) => void} [onPoll]
 * @property {import('./pipeline/claims.js').Sharing} sharing collectors side by side: the apps and readers
 *   this one takes (pipeline/claims.js)
 */

/**
 * Every job the configuration asks for, the Cloud Controller poll first.
 * @param {import('./config/index.js').Config} config @param {Omit<JobDeps, 'sharing'>} opened
 * @returns {CollectorJob[]}
 */
export function collectorJobs(config, opened) {
  const sharing = createSharing(config, { pool: opened.pool, schemaReady: opened.schemaReady });
  const deps = { ...opened, sharing };
  const cloudController = createCloudControllerSource(config, {
    log: deps.log,
    onRetry: (reason) => deps.prometheus.self.retries.inc({ source: 'cloud-controller', reason }),
    claimApps: sharing.claimApps,
  });
  return [
    pollJob(config, sharing.share(cloudController), deps),
    config.search.url ? searchJob(config, deps) : undefined,
    config.routerLogFile.path ? fileJob(config, deps) : undefined,
    config.logCache.url ? logCacheJob(config, cloudController, deps) : undefined,
    drainConfigured(config) ? drainJob(config, deps) : undefined,
    retentionJob(config, deps),
  ].filter((job) => job !== undefined);
}

/**
 * @param {import('./config/index.js').Config} config
 * @param {ReturnType<typeof createCloudControllerSource>} source @param {JobDeps} deps @returns {CollectorJob}
 */
function pollJob(config, source, { log, prometheus, postgres, signal, schemaReady, onPoll }) {
  const poller = createPoller({ source, sinks: [prometheus, postgres], metrics: prometheus.self, log, signal });
  return {
    name: source.name,
    schedule: config.pollSchedule,
    run: poller,
    role: 'poll',
    // Written in the background: a slow or absent database must not delay or skip polls.
    afterRun: (outcome) => {
      onPoll?.(outcome);
      void schemaReady.then(async (ok) => {
        if (ok) await postgres.flush();
      });
    },
    close: async () => source.close?.(),
  };
}

/** @param {import('./config/index.js').Config} config @param {JobDeps} deps @returns {CollectorJob} */
function searchJob(config, deps) {
  const source = createRouterLogSource(config, {
    log: deps.log,
    onRetry: (reason) => deps.prometheus.self.retries.inc({ source: 'router-logs', reason }),
  });
  const job = routerIngestJob(config, source.name, deps, async (ctx, pages) => {
    const window = { now: ctx.now, delayMs: config.ingestDelayMs, lookbackMs: config.ingestLookbackMs };
    const result = await ingestIncrement(source, { ...window, signal: ctx.signal }, pages);
    deps.prometheus.setIngestLag((Date.now() - Date.parse(/** @type {string} */ (result.to))) / 1000);
    return result;
  });
  return { ...job, close: () => source.close() };
}

/**
 * ROUTER_LOG_FILE followed as it grows: each run reads the complete lines after the position it
 * reached last time.
 * @param {import('./config/index.js').Config} config @param {JobDeps} deps @returns {CollectorJob}
 */
function fileJob(config, deps) {
  const file = /** @type {string} */ (config.routerLogFile.path);
  const options = { appName: config.routerLogFile.appName, correlationHeader: config.correlationHeader };
  const ingest = (/** @type {any} */ _ctx, /** @type {import('./pipeline/ingest.js').IngestDeps} */ pages) =>
    ingestFileIncrement(file, options, pages);
  return routerIngestJob(config, 'router-log-file', deps, ingest, EXPECTED_SKIPS.lines);
}

/**
 * A router-log ingest job on INGEST_SCHEDULE, once the schema is in place, judged on its own
 * recent increments (skipped-window.js), never on another source's.
 * @param {import('./config/index.js').Config} config @param {string} name @param {JobDeps} deps
 * @param {(ctx: import('../core/types.js').PollContext, deps: import('./pipeline/ingest.js').IngestDeps) =>
 *   Promise<import('./pipeline/ingest.js').IngestResult>} ingest
 * @param {readonly string[]} [expected] skip reasons that are not a loss (EXPECTED_SKIPS)
 * @returns {CollectorJob}
 */
function routerIngestJob(config, name, { log, prometheus, pool, schemaReady, signal, sharing }, ingest, expected) {
  const recent = createSkippedWindow({ maxRatio: config.ingestMaxSkippedRatio, expected });
  const run = createJob({
    name,
    metrics: prometheus.self,
    log,
    signal,
    work: sharing.holdReader(name, async (ctx) => {
      if (!(await schemaReady)) return { records: 0 };
      const writePage = createPageWriter(pool, prometheus.postgresMetrics);
      const result = await ingest(ctx, { pool, writePage, metrics: prometheus, warn: ctx.warn });
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
  return { name, schedule: config.ingestSchedule, run, role: 'router-ingest', lastVerdict: recent.verdict };
}

/**
 * The Log Cache ingest on LOG_CACHE_SCHEDULE: the watched apps and the UAA token of the Cloud Controller.
 * @param {import('./config/index.js').Config} config
 * @param {ReturnType<typeof createCloudControllerSource>} cloudController @param {JobDeps} deps
 * @returns {CollectorJob}
 */
function logCacheJob(config, cloudController, { log, prometheus, pool, schemaReady, signal, sharing }) {
  const { client } = cloudController;
  const correlationField = headerLogField(config.correlationHeader);
  const get = async (/** @type {string} */ url, /** @type {AbortSignal | undefined} */ s) =>
    (await client.get(url, s)).data;
  const run = createJob({
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
          reason: LOG_CACHE.DISCOVERY,
        });
      }
      const apps = await cloudController.watchedApps(ctx);
      const reader = { get, baseUrl, now: ctx.now, lookbackMs: config.logCache.lookbackMs, correlationField };
      const pages = {
        pool,
        writePage: createPageWriter(pool, prometheus.postgresMetrics),
        metrics: prometheus,
        warn: ctx.warn,
      };
      return ingestLogCache(apps, { ...reader, signal: ctx.signal }, pages);
    }),
  });
  return { name: 'log-cache', schedule: config.logCache.schedule, run, role: 'log-cache' };
}

/** @param {import('./config/index.js').Config} config @param {JobDeps} deps @returns {CollectorJob} */
function drainJob(config, { log, prometheus, pool, schemaReady }) {
  const metrics = {
    count: prometheus.observeDrain,
    buffered: prometheus.setDrainBuffered,
    observeRouterRequests: prometheus.showRouterRequests,
  };
  const openIntake = pushedPages({ pool, schemaReady, log, metrics: prometheus.postgresMetrics });
  return { name: 'syslog-drain', trigger: 'push', start: () => startDrain(config, { openIntake, log, metrics }) };
}

/**
 * The database's upkeep on timers of its own: partitions of the coming days and RETENTION's prune
 * hourly (retention-job.js), stale run figures every minute (run-figures.js).
 * @param {import('./config/index.js').Config} config @param {JobDeps} deps @returns {CollectorJob}
 */
function retentionJob(config, { pool, log, schemaReady }) {
  return {
    name: 'partitions',
    trigger: 'push',
    start: async () => {
      const upkeep = [
        startRetentionJob(pool, config.retentionMs, log, schemaReady),
        startFiguresJob(pool, log, schemaReady),
      ];
      return { stop: async () => void (await Promise.all(upkeep.map((job) => job.stop()))) };
    },
  };
}
