// The jobs of `paasmon collect`: one per source of the registry (sources/registry.js) the settings
// ask for, driven by its kind: the polled one (Cloud Controller) and the paged ones (search, file,
// Log Cache) on a schedule, the pushed one (syslog drain) when the platform pushes; then the
// database's upkeep. pipeline/run-jobs.js starts and stops them all.
import { createSharing } from './pipeline/claims.js';
import { createPoller } from './pipeline/poller.js';
import { createCorrelationRefresh, pagedJob, pushedJob } from './pipeline/source-jobs.js';
import { SOURCES } from './sources/registry.js';
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
 * @property {'poll' | 'router-ingest'} [role] how /healthz reports it: the poll, or a paged source's reads
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
 * Every job the configuration asks for, in the registry's order (the Cloud Controller poll first).
 * @param {import('./config/index.js').Config} config @param {Omit<JobDeps, 'sharing'>} opened
 * @param {Readonly<Record<string, import('./sources/registry.js').SourceEntry>>} [sources] default: the registry
 * @returns {CollectorJob[]}
 */
export function collectorJobs(config, opened, sources = SOURCES) {
  const sharing = createSharing(config, { pool: opened.pool, schemaReady: opened.schemaReady });
  const deps = { ...opened, sharing };
  const { log, prometheus, pool } = deps;
  const refresh = createCorrelationRefresh({ pool, prometheus, log });
  const drainMetrics = {
    count: prometheus.observeDrain,
    buffered: prometheus.setDrainBuffered,
    observeRouterRequests: prometheus.showRouterRequests,
  };
  /** @type {Omit<import('./sources/registry.js').SourceDeps, 'onRetry'>} what every source is made with */
  const shared = { log, claimApps: sharing.claimApps, drainMetrics };
  /** @type {CollectorJob[]} */
  const jobs = [];
  for (const [name, entry] of Object.entries(sources)) {
    if (!entry.configured(config)) continue;
    const made = {
      ...shared,
      onRetry: (/** @type {string} */ reason) => prometheus.self.retries.inc({ source: name, reason }),
    };
    const routerRows = entry.records.includes('router');
    const schedule = entry.schedule?.(config) ?? '';
    if (entry.kind === 'polled') {
      const source = entry.make(config, made);
      // The sources after it read the Cloud Controller's watched apps with its token (Log Cache).
      shared.cloudController ??= source;
      jobs.push(pollJob(schedule, sharing.share(source), deps));
    } else if (entry.kind === 'paged') {
      const { holdReader } = sharing;
      const maxSkippedRatio = config.ingestMaxSkippedRatio;
      const source = entry.make(config, made);
      jobs.push(pagedJob(source, { ...deps, schedule, routerRows, maxSkippedRatio, holdReader, refresh }));
    } else {
      jobs.push(pushedJob(entry.make(config, made), { ...deps, routerRows, refresh }));
    }
  }
  return [...jobs, retentionJob(config, deps)];
}

/**
 * @param {string} schedule
 * @param {import('./sources/registry.js').CloudControllerSource} source @param {JobDeps} deps @returns {CollectorJob}
 */
function pollJob(schedule, source, { log, prometheus, postgres, signal, schemaReady, onPoll }) {
  const poller = createPoller({ source, sinks: [prometheus, postgres], metrics: prometheus.self, log, signal });
  return {
    name: source.name,
    schedule,
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
