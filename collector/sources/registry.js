// Every source `collect` can run, in one map: a source is a folder under sources/ and a line here.
// `kind` says how the pipeline drives what `make` returns: 'polled' (a Source, polled into the sinks),
// 'paged' (a ScheduledPagedSource, its reads stored through the page path), 'pushed' (a PushedSource,
// started with the pipeline's intake). What follows stored router rows (the skipped share, the
// correlation counts, /healthz) is attached by kind in the pipeline, once for every source.
import { createCloudControllerSource } from './cloud-controller/index.js';
import { logCacheJobSource } from './log-cache/index.js';
import { fileJobSource } from './router-logs/file.js';
import { searchJobSource } from './router-logs/index.js';
import { drainConfigured, drainJobSource } from './syslog-drain/index.js';

/** @typedef {import('../config/index.js').Config} Config */
/** @typedef {ReturnType<typeof createCloudControllerSource>} CloudControllerSource */

/**
 * What `collect` hands every source it makes.
 * @typedef {object} SourceDeps
 * @property {import('pino').Logger} log
 * @property {(reason: string) => void} onRetry counts a retried request of this source, by reason
 * @property {NonNullable<Parameters<typeof createCloudControllerSource>[1]>['claimApps']} [claimApps] of the
 *   apps with instances, those this collector polls (collectors side by side)
 * @property {CloudControllerSource} [cloudController] made before the others: its watched apps and UAA token
 * @property {import('./syslog-drain/receiver.js').DrainMetrics} [drainMetrics]
 */

/**
 * A line of the map: how the pipeline drives the source, the records it yields, whether the settings
 * ask for it, and how it is made from them.
 * @template {'polled' | 'paged' | 'pushed'} K @template S
 * @typedef {object} Entry
 * @property {K} kind
 * @property {ReadonlyArray<'router' | 'instance'>} records router requests, instance samples
 * @property {(settings: Config) => boolean} configured may throw a ConfigError for settings that cannot work
 * @property {(settings: Config) => string} [schedule] a polled or paged source's cron
 * @property {(settings: Config, deps: SourceDeps) => S} make
 */

/**
 * @typedef {Entry<'polled', CloudControllerSource> | Entry<'paged', import('../../core/types.js').ScheduledPagedSource>
 *   | Entry<'pushed', import('../../core/types.js').PushedSource>} SourceEntry
 */

/** @type {Readonly<Record<string, SourceEntry>>} in the order the jobs are made: the Cloud Controller first */
export const SOURCES = Object.freeze({
  'cloud-controller': {
    kind: 'polled',
    records: ['instance'],
    configured: () => true,
    schedule: (settings) => settings.pollSchedule,
    make: createCloudControllerSource,
  },
  'router-logs': {
    kind: 'paged',
    records: ['router'],
    configured: (settings) => Boolean(settings.search.url),
    schedule: (settings) => settings.ingestSchedule,
    make: searchJobSource,
  },
  'router-log-file': {
    kind: 'paged',
    records: ['router'],
    configured: (settings) => Boolean(settings.routerLogFile.path),
    schedule: (settings) => settings.ingestSchedule,
    make: fileJobSource,
  },
  'log-cache': {
    kind: 'paged',
    records: ['router', 'instance'],
    configured: (settings) => Boolean(settings.logCache.url),
    schedule: (settings) => settings.logCache.schedule,
    make: (settings, deps) => logCacheJobSource(settings, { cloudController: madeFirst(deps) }),
  },
  'syslog-drain': {
    kind: 'pushed',
    records: ['router'],
    configured: drainConfigured,
    make: drainJobSource,
  },
});

/** @param {SourceDeps} deps */
function madeFirst({ cloudController }) {
  if (!cloudController) throw new Error('log-cache source needs the Cloud Controller source made before it');
  return cloudController;
}
