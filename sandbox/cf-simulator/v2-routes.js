// The legacy v2 endpoints paasmon falls back to: the app list (q filters) and app stats.
import { send } from './reply.js';

/**
 * Answers a v2 path, or returns false when the path is not one of these.
 * @param {import('./reply.js').SimulatorContext} context
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 */
export function answerV2(context, res, url) {
  const path = url.pathname;
  if (path === '/v2/apps' || /^\/v2\/spaces\/[^/]+\/apps$/.test(path)) {
    answerAppList(context, res, url);
    return true;
  }
  const v2stats = /^\/v2\/apps\/([^/]+)\/stats$/.exec(path);
  if (v2stats) {
    answerAppStats(context, res, v2stats[1]);
    return true;
  }
  return false;
}

/** @param {import('./fixtures.js').AppSpec} a @param {string[]} q the `q` conditions, all of which must hold */
const matchesQuery = (a, q) =>
  q.every((cond) => {
    const m = /^(name|guid|space_guid)( IN |:)(.*)$/.exec(cond);
    if (!m) return true;
    const values = m[2] === ' IN ' ? m[3].split(',') : [m[3]];
    const field = m[1] === 'name' ? a.name : m[1] === 'guid' ? a.guid : a.spaceGuid;
    return values.includes(field);
  });

/**
 * @param {import('./reply.js').SimulatorContext} context
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 */
function answerAppList({ faults, state, base }, res, url) {
  const q = url.searchParams.getAll('q');
  const spaceFromPath = /^\/v2\/spaces\/([^/]+)\/apps$/.exec(url.pathname)?.[1];
  const found = state.apps.filter((a) => (!spaceFromPath || a.spaceGuid === spaceFromPath) && matchesQuery(a, q));
  const perPage = Math.min(Number(url.searchParams.get('results-per-page') ?? 50), faults.pageSize);
  const pageNo = Number(url.searchParams.get('page') ?? 1);
  const totalPages = Math.max(1, Math.ceil(found.length / perPage));
  const next = new URL(url.pathname + url.search, base);
  next.searchParams.set('page', String(pageNo + 1));
  send(res, 200, {
    total_results: found.length,
    total_pages: totalPages,
    prev_url: null,
    next_url: pageNo < totalPages ? next.pathname + next.search : null,
    resources: found.slice((pageNo - 1) * perPage, pageNo * perPage).map((a) => ({
      metadata: { guid: a.guid, url: `/v2/apps/${a.guid}` },
      entity: {
        name: a.name,
        space_guid: a.spaceGuid,
        state: a.state,
        instances: a.processes[0].instances.length,
        memory: a.processes[0].memoryMb,
        disk_quota: a.processes[0].diskMb,
      },
    })),
  });
}

/**
 * @param {import('./reply.js').SimulatorContext} context
 * @param {import('node:http').ServerResponse} res
 * @param {string} appGuid
 */
function answerAppStats({ faults, counters, state }, res, appGuid) {
  counters.statsRequests += 1;
  const app = state.apps.find((a) => a.guid === appGuid);
  if (!app)
    return send(res, 404, {
      description: 'The app could not be found',
      error_code: 'CF-AppNotFound',
      code: 100004,
    });
  if (app.state === 'STOPPED')
    return send(res, 400, {
      description: 'Could not fetch stats for stopped app',
      error_code: 'CF-AppStoppedStatsError',
      code: 200003,
    });
  if (faults.statsUnavailable > 0) {
    faults.statsUnavailable -= 1;
    return send(res, 503, {
      description: 'Stats unavailable: Stats server temporarily unavailable.',
      error_code: 'CF-StatsUnavailable',
      code: 200002,
    });
  }
  const web = app.processes[0];
  /** @type {Record<string, unknown>} */
  const body = {};
  web.instances.forEach((inst, i) => {
    body[String(i)] = inst.state === 'DOWN' ? { state: 'DOWN', since: 1403140717.984577 } : v2Entry(app, inst);
  });
  return send(res, 200, body);
}

/** @param {import('./fixtures.js').AppSpec} app @param {import('./fixtures.js').InstanceSpec} inst */
const v2Entry = (app, inst) => {
  const web = app.processes[0];
  return {
    state: inst.state,
    isolation_segment: 'iso-seg-name',
    stats: {
      usage: {
        disk: inst.disk ?? 0,
        mem: inst.mem ?? 0,
        cpu: inst.cpu ?? 0,
        time: '2014-06-19 22:37:58 +0000',
      },
      name: app.name,
      uris: [`${app.name}.example.com`],
      host: '10.0.0.1',
      port: 61035,
      uptime: inst.uptime ?? 0,
      mem_quota: web.memoryMb * 1024 * 1024,
      disk_quota: web.diskMb * 1024 * 1024,
      fds_quota: 16384,
    },
  };
};
