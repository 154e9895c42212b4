// Source `cloud-controller`: watched apps -> processes -> per-instance stats -> InstanceSample.
import { splitApps } from '../../../core/ids.js';
import { SourceError, reasonOf } from '../../../core/errors.js';
import { createCloudControllerClient } from './client.js';
import { resolveAppsV3, watchedV2, watchedV3 } from './watched.js';
import { parseV2Stats, parseV3Stats } from './parse.js';
import { createReadingMemory } from './readings.js';

/** @typedef {import('../../../core/types.js').InstanceSample} InstanceSample */
/** @typedef {import('./watched.js').WatchedApp} WatchedApp */
/** @typedef {import('./watched.js').WatchedProcess} WatchedProcess */

/** @typedef {import('./client.js').CloudControllerClient} CloudControllerClient */

/**
 * @param {import('../../config/index.js').Config} config
 * @param {{ log?: import('pino').Logger, backoff?: import('../../../core/retry.js').BackoffOptions,
 *   onRetry?: (reason: string) => void, claimApps?: (apps: WatchedApp[],
 *   ctx: import('../../../core/types.js').PollContext) => Promise<Set<string> | undefined> }} [deps]
 *   claimApps: of the apps with instances, the guids to poll now (collectors side by side); undefined: all
 * @returns {import('../../../core/types.js').Source<InstanceSample> & { client: CloudControllerClient,
 *   watchedApps: (ctx: import('../../../core/types.js').PollContext) => Promise<WatchedApp[]> }}
 */
export function createCloudControllerSource(config, deps = {}) {
  const cf = config.cf;
  if (!cf.api) throw new Error('cloud-controller source needs CF_API (checked by requireCloudController)');
  const client = createCloudControllerClient({ ...cf, api: cf.api }, deps);

  const scope = { client, cf, ...splitApps(cf.apps) };
  const readings = createReadingMemory();

  return {
    name: 'cloud-controller',
    client,
    /**
     * The apps CF_APPS / CF_SPACE_GUID name, as guid and name (for the Log Cache source).
     * @param {import('../../../core/types.js').PollContext} ctx
     */
    async watchedApps(ctx) {
      const { v3 } = await client.discovery(ctx.signal);
      return v3 ? resolveAppsV3(scope, ctx) : (await watchedV2(scope, ctx)).apps;
    },
    /** @param {import('../../../core/types.js').PollContext} ctx */
    async poll(ctx) {
      /** @type {{ apps: WatchedApp[], processes: WatchedProcess[] }} */
      let watched;
      try {
        const { v3 } = await client.discovery(ctx.signal);
        watched = v3 ? await watchedV3(scope, ctx) : await watchedV2(scope, ctx);
      } catch (err) {
        throw new SourceError(`cloud-controller: resolving watched apps: ${/** @type {Error} */ (err).message}`, {
          reason: reasonOf(err),
          cause: err,
        });
      }
      const claimed = await deps.claimApps?.(
        watched.processes.map((p) => p.app),
        ctx,
      );
      const processes = claimed ? watched.processes.filter((p) => claimed.has(p.app.guid)) : watched.processes;
      try {
        return readings.mark(await statsOf(client, processes, ctx));
      } catch (err) {
        if (err instanceof SourceError) readings.mark(/** @type {InstanceSample[]} */ (err.records));
        throw err;
      }
    },
    async close() {
      client.close();
    },
  };
}

/**
 * Every watched process's instance stats, sorted by app, process type and instance; throws
 * SourceError with the samples it has when any process failed.
 * @param {CloudControllerClient} client @param {import('./watched.js').WatchedProcess[]} processes
 * @param {import('../../../core/types.js').PollContext} ctx @returns {Promise<InstanceSample[]>}
 */
async function statsOf(client, processes, ctx) {
  /** @type {InstanceSample[]} */
  const samples = [];
  /** @type {unknown[]} */
  const failures = [];
  await Promise.all(
    processes.map(async (process) => {
      try {
        const response = await client.get(process.statsPath, ctx.signal);
        const warning = response.headers['x-cf-warnings'];
        if (warning)
          ctx.log.warn(
            { app: process.app.name, warning: decodeURIComponent(String(warning)) },
            'cloud-controller: API warning',
          );
        const statsContext = {
          ts: ctx.now,
          appGuid: process.app.guid,
          appName: process.app.name,
          processType: process.type,
        };
        const parsed = process.v2
          ? parseV2Stats(response.data, statsContext)
          : parseV3Stats(response.data, statsContext);
        for (const w of parsed.warnings) ctx.warn(w.reason, w.detail);
        samples.push(...parsed.samples);
      } catch (err) {
        failures.push(err);
      }
    }),
  );
  samples.sort(
    (a, b) =>
      a.appName.localeCompare(b.appName) ||
      a.processType.localeCompare(b.processType) ||
      a.instanceIndex - b.instanceIndex,
  );
  if (failures.length) {
    const first = /** @type {Error} */ (failures[0]);
    throw new SourceError(
      `cloud-controller: stats of ${failures.length} of ${processes.length} processes failed: ` + `${first.message}`,
      {
        reason: reasonOf(first),
        cause: first,
        records: samples,
      },
    );
  }
  return samples;
}
