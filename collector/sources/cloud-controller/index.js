// Source `cloud-controller`: watched apps -> processes -> per-instance stats -> InstanceSample.
import { splitApps } from '../../../core/ids.js';
import { SourceError, reasonOf } from '../../../core/errors.js';
import { createCloudControllerClient } from './client.js';
import { parseV2Stats, parseV3Stats } from './parse.js';
import { CLOUD_CONTROLLER } from '../../../core/reason-codes.js';

/** @typedef {import('../../../core/types.js').InstanceSample} InstanceSample */
/** @typedef {{ guid: string, name: string }} WatchedApp */
/** @typedef {{ app: WatchedApp, type: string, statsPath: string, v2: boolean }} WatchedProcess */

const PER_PAGE = 5000;
/** App GUIDs per `?app_guids=` query, to keep URLs well under common proxy limits. */
const GUIDS_PER_QUERY = 50;

/** @typedef {import('./client.js').CloudControllerClient} CloudControllerClient */

/**
 * @param {import('../../config/index.js').Config} config
 * @param {{ log?: import('pino').Logger, backoff?: import('../../../core/retry.js').BackoffOptions,
 *   onRetry?: (reason: string) => void }} [deps]
 * @returns {import('../../../core/types.js').Source<InstanceSample> & { client: CloudControllerClient,
 *   watchedApps: (ctx: import('../../../core/types.js').PollContext) => Promise<WatchedApp[]> }}
 */
export function createCloudControllerSource(config, deps = {}) {
  const cf = config.cf;
  if (!cf.api) throw new Error('cloud-controller source needs CF_API (checked by requireCloudController)');
  const client = createCloudControllerClient({ ...cf, api: cf.api }, deps);
  const { guids, names } = splitApps(cf.apps);

  /** @param {import('../../../core/types.js').PollContext} ctx @returns {Promise<WatchedApp[]>} */
  async function resolveAppsV3(ctx) {
    const space = cf.spaceGuid ? `&space_guids=${cf.spaceGuid}` : '';
    /** @type {any[]} */
    const found = [];
    if (names.length) {
      found.push(
        ...(await client.getAllV3(
          `/v3/apps?names=${names.map(encodeURIComponent).join(',')}${space}&per_page=${PER_PAGE}`,
          ctx.signal,
        )),
      );
    }
    if (guids.length)
      found.push(...(await client.getAllV3(`/v3/apps?guids=${guids.join(',')}&per_page=${PER_PAGE}`, ctx.signal)));
    if (!names.length && !guids.length)
      found.push(...(await client.getAllV3(`/v3/apps?space_guids=${cf.spaceGuid}&per_page=${PER_PAGE}`, ctx.signal)));
    return checkResolved(
      found.map((a) => ({ guid: String(a.guid), name: String(a.name) })),
      ctx,
    );
  }

  /**
   * @param {import('../../../core/types.js').PollContext} ctx
   * @returns {Promise<{ apps: WatchedApp[], processes: WatchedProcess[] }>}
   */
  async function watchedV3(ctx) {
    const apps = await resolveAppsV3(ctx);
    const byGuid = new Map(apps.map((a) => [a.guid, a]));
    /** @type {WatchedProcess[]} */
    const processes = [];
    for (let i = 0; i < apps.length; i += GUIDS_PER_QUERY) {
      const chunk = apps.slice(i, i + GUIDS_PER_QUERY).map((a) => a.guid);
      const list = await client.getAllV3(`/v3/processes?app_guids=${chunk.join(',')}&per_page=${PER_PAGE}`, ctx.signal);
      for (const p of list) {
        const app = byGuid.get(p.relationships?.app?.data?.guid);
        if (!app || !(Number(p.instances) > 0)) continue;
        processes.push({ app, type: String(p.type), statsPath: `/v3/processes/${p.guid}/stats`, v2: false });
      }
    }
    return { apps, processes };
  }

  /**
   * @param {import('../../../core/types.js').PollContext} ctx
   * @returns {Promise<{ apps: WatchedApp[], processes: WatchedProcess[] }>}
   */
  async function watchedV2(ctx) {
    const space = cf.spaceGuid ? `&q=space_guid:${cf.spaceGuid}` : '';
    /** @type {any[]} */
    const found = [];
    if (names.length)
      found.push(
        ...(await client.getAllV2(
          `/v2/apps?q=${encodeURIComponent(`name IN ${names.join(',')}`)}${space}&results-per-page=100`,
          ctx.signal,
        )),
      );
    if (guids.length)
      found.push(
        ...(await client.getAllV2(
          `/v2/apps?q=${encodeURIComponent(`guid IN ${guids.join(',')}`)}&results-per-page=100`,
          ctx.signal,
        )),
      );
    if (!names.length && !guids.length)
      found.push(...(await client.getAllV2(`/v2/spaces/${cf.spaceGuid}/apps?results-per-page=100`, ctx.signal)));
    const apps = checkResolved(
      found.map((a) => ({ guid: String(a.metadata?.guid), name: String(a.entity?.name) })),
      ctx,
    );
    const running = new Set(
      found
        .filter((a) => a.entity?.state !== 'STOPPED' && Number(a.entity?.instances) > 0)
        .map((a) => a.metadata?.guid),
    );
    const processes = apps
      .filter((a) => running.has(a.guid))
      .map((app) => ({ app, type: 'web', statsPath: `/v2/apps/${app.guid}/stats`, v2: true }));
    return { apps, processes };
  }

  /** @param {WatchedApp[]} found @param {import('../../../core/types.js').PollContext} ctx */
  function checkResolved(found, ctx) {
    const unique = [...new Map(found.map((a) => [a.guid, a])).values()];
    for (const name of names) {
      const matches = unique.filter((a) => a.name === name);
      if (matches.length === 0)
        ctx.warn(
          CLOUD_CONTROLLER.APP_NOT_FOUND,
          `app "${name}" not found${cf.spaceGuid ? ` in space ${cf.spaceGuid}` : ''}`,
        );
      if (matches.length > 1)
        ctx.warn(
          CLOUD_CONTROLLER.AMBIGUOUS_APP_NAME,
          `app name "${name}" matches ${matches.length} apps; set CF_SPACE_GUID to choose one (watching all)`,
        );
    }
    for (const guid of guids) {
      if (!unique.some((a) => a.guid === guid)) ctx.warn(CLOUD_CONTROLLER.APP_NOT_FOUND, `app ${guid} not found`);
    }
    return unique;
  }

  return {
    name: 'cloud-controller',
    client,
    /**
     * The apps CF_APPS / CF_SPACE_GUID name, as guid and name (for the Log Cache source).
     * @param {import('../../../core/types.js').PollContext} ctx
     */
    async watchedApps(ctx) {
      const { v3 } = await client.discovery(ctx.signal);
      return v3 ? resolveAppsV3(ctx) : (await watchedV2(ctx)).apps;
    },
    /** @param {import('../../../core/types.js').PollContext} ctx */
    async poll(ctx) {
      /** @type {{ apps: WatchedApp[], processes: WatchedProcess[] }} */
      let watched;
      try {
        const { v3 } = await client.discovery(ctx.signal);
        watched = v3 ? await watchedV3(ctx) : await watchedV2(ctx);
      } catch (err) {
        throw new SourceError(`cloud-controller: resolving watched apps: ${/** @type {Error} */ (err).message}`, {
          reason: reasonOf(err),
          cause: err,
        });
      }
      /** @type {InstanceSample[]} */
      const samples = [];
      /** @type {unknown[]} */
      const failures = [];
      await Promise.all(
        watched.processes.map(async (process) => {
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
          `cloud-controller: stats of ${failures.length} of ${watched.processes.length} processes failed: ` +
            `${first.message}`,
          {
            reason: reasonOf(first),
            cause: first,
            records: samples,
          },
        );
      }
      return samples;
    },
    async close() {
      client.close();
    },
  };
}
