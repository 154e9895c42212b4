// App names by guid from the Cloud Controller, for router-log lines that carry only `app_id`.
import { createCloudControllerClient } from './client.js';

/** GUIDs per `?guids=` query, to keep URLs well under common proxy limits. */
const GUIDS_PER_QUERY = 50;

/**
 * @param {import('../../config/index.js').Config} config (CF_API checked by requireCloudController)
 * @param {{ log?: import('pino').Logger }} [deps]
 */
export function createAppNameLookup(config, deps = {}) {
  if (!config.cf.api) throw new Error('app name lookup needs CF_API (checked by requireCloudController)');
  const client = createCloudControllerClient({ ...config.cf, api: config.cf.api }, deps);
  return {
    /**
     * @param {string[]} guids @returns {Promise<Map<string, string>>} the names found (unknown guids are absent)
     */
    async namesOf(guids) {
      const { v3 } = await client.discovery();
      if (!v3) throw new Error('this Cloud Controller has no v3 API to look app names up: name the app with --app');
      /** @type {Map<string, string>} */
      const names = new Map();
      for (let i = 0; i < guids.length; i += GUIDS_PER_QUERY) {
        const chunk = guids
          .slice(i, i + GUIDS_PER_QUERY)
          .map(encodeURIComponent)
          .join(',');
        for (const app of await client.getAllV3(`/v3/apps?guids=${chunk}&per_page=${GUIDS_PER_QUERY}`))
          if (app?.guid && typeof app.name === 'string') names.set(String(app.guid).toLowerCase(), app.name);
      }
      return names;
    },
    close: () => client.close(),
  };
}
