// The v3 endpoints paasmon reads: apps and processes (filtered, paginated) and process stats (with faults).
import { send, v3Error } from './reply.js';
import { appResource, page, processResource, statsEntry } from './v3-resources.js';

/**
 * Answers a v3 path, or returns false when the path is not one of these.
 * @param {import('./reply.js').SimulatorContext} context
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 * @param {Record<string, string>} rate rate-limit headers of a successful answer
 * @returns {Promise<boolean>}
 */
export async function answerV3(context, res, url, rate) {
  const { state } = context;
  const path = url.pathname;
  const list = (/** @type {string} */ name) => (url.searchParams.get(name) ?? '').split(',').filter(Boolean);

  if (path === '/v3/apps') {
    const names = list('names');
    const guids = list('guids');
    const spaces = list('space_guids');
    const found = state.apps.filter(
      (a) =>
        (!names.length || names.includes(a.name)) &&
        (!guids.length || guids.includes(a.guid)) &&
        (!spaces.length || spaces.includes(a.spaceGuid)),
    );
    send(
      res,
      200,
      page(
        context,
        url,
        found.map((a) => appResource(context.base, a)),
      ),
      rate,
    );
    return true;
  }
  if (path === '/v3/processes') {
    const appGuids = list('app_guids');
    const found = state.apps
      .filter((a) => !appGuids.length || appGuids.includes(a.guid))
      .flatMap((a) => a.processes.map((p) => processResource(context.base, a, p)));
    send(res, 200, page(context, url, found), rate);
    return true;
  }
  const stats = /^\/v3\/processes\/([^/]+)\/stats$/.exec(path);
  if (stats) {
    await answerProcessStats(context, res, stats[1], rate);
    return true;
  }
  return false;
}

/**
 * @param {import('./reply.js').SimulatorContext} context
 * @param {import('node:http').ServerResponse} res
 * @param {string} processGuid
 * @param {Record<string, string>} rate
 */
async function answerProcessStats({ faults, counters, state }, res, processGuid, rate) {
  counters.statsRequests += 1;
  const owner = state.apps.find((a) => a.processes.some((p) => p.guid === processGuid));
  const process = owner?.processes.find((p) => p.guid === processGuid);
  if (!process) return send(res, 404, v3Error('CF-ResourceNotFound', 10010, 'Process not found'));
  if (faults.slowStatsMs) await new Promise((r) => setTimeout(r, faults.slowStatsMs));
  if (faults.statsUnavailable > 0 || faults.statsUnavailableFor.includes(owner?.name ?? '')) {
    if (faults.statsUnavailable > 0) faults.statsUnavailable -= 1;
    return send(res, 503, v3Error('CF-StatsUnavailable', 200002, 'Stats server temporarily unavailable.'));
  }
  const headers = faults.emptyUsage
    ? { ...rate, 'X-Cf-Warnings': 'Stats%20server%20temporarily%20unavailable.' }
    : rate;
  const resources = process.instances.map((inst, i) => statsEntry(faults, process, inst, i));
  return send(res, 200, { resources }, headers);
}
