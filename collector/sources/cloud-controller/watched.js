// Which apps and processes a Cloud Controller source watches: CF_APPS by name or guid (in
// CF_SPACE_GUID), or every app of the space; v3 where the API has it, v2 otherwise.
import { CLOUD_CONTROLLER } from '../../../core/reason-codes.js';

/** @typedef {{ guid: string, name: string }} WatchedApp */
/** @typedef {{ app: WatchedApp, type: string, statsPath: string, v2: boolean }} WatchedProcess */

const PER_PAGE = 5000;
/** App GUIDs per `?app_guids=` query, to keep URLs well under common proxy limits. */
const GUIDS_PER_QUERY = 50;

/**
 * What resolving needs: the client, the space, and CF_APPS split into names and guids.
 * @typedef {{ client: import('./client.js').CloudControllerClient, cf: { spaceGuid?: string }, names: string[],
 *   guids: string[] }} Scope
 */

/** @param {Scope} scope @param {import('../../../core/types.js').PollContext} ctx @returns {Promise<WatchedApp[]>} */
export async function resolveAppsV3(scope, ctx) {
  const { client, cf, names, guids } = scope;
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
    scope,
    found.map((a) => ({ guid: String(a.guid), name: String(a.name) })),
    ctx,
  );
}

/**
 * @param {Scope} scope @param {import('../../../core/types.js').PollContext} ctx
 * @returns {Promise<{ apps: WatchedApp[], processes: WatchedProcess[] }>}
 */
export async function watchedV3(scope, ctx) {
  const { client } = scope;
  const apps = await resolveAppsV3(scope, ctx);
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
 * @param {Scope} scope @param {import('../../../core/types.js').PollContext} ctx
 * @returns {Promise<{ apps: WatchedApp[], processes: WatchedProcess[] }>}
 */
export async function watchedV2(scope, ctx) {
  const { client, cf, names, guids } = scope;
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
    scope,
    found.map((a) => ({ guid: String(a.metadata?.guid), name: String(a.entity?.name) })),
    ctx,
  );
  const running = new Set(
    found.filter((a) => a.entity?.state !== 'STOPPED' && Number(a.entity?.instances) > 0).map((a) => a.metadata?.guid),
  );
  const processes = apps
    .filter((a) => running.has(a.guid))
    .map((app) => ({ app, type: 'web', statsPath: `/v2/apps/${app.guid}/stats`, v2: true }));
  return { apps, processes };
}

/** @param {Scope} scope @param {WatchedApp[]} found @param {import('../../../core/types.js').PollContext} ctx */
function checkResolved({ cf, names, guids }, found, ctx) {
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
