// A Cloud Controller + UAA stand-in: a real HTTP server answering with the shapes of
// ../shared/reference/cloud-foundry.md, with faults that tests switch on. Shared by the tests and
// `paasmon demo` (sandbox/platform.js gives it live usage of real processes); never used against a real platform.
import crypto from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';

/**
 * @typedef {object} InstanceSpec
 * @property {'RUNNING' | 'STARTING' | 'CRASHED' | 'DOWN' | 'STOPPING'} state
 * @property {number} [cpu] fraction of one core
 * @property {number | null} [cpuEntitlement] fraction of the entitlement; null = field absent (CC < 3.160)
 * @property {number} [mem] bytes
 * @property {number} [disk] bytes
 * @property {number} [uptime] seconds
 * @property {() => LiveUsage | undefined} [live] measured usage, asked at every stats answer; wins over the
 *   fixed numbers
 *
 * @typedef {object} LiveUsage
 * @property {number} cpu fraction of one core
 * @property {number} cpuEntitlement fraction of the entitlement
 * @property {number} mem bytes
 * @property {number} uptime seconds
 *
 * @typedef {object} ProcessSpec
 * @property {string} guid
 * @property {string} type
 * @property {number} memoryMb
 * @property {number} diskMb
 * @property {InstanceSpec[]} instances
 *
 * @typedef {object} AppSpec
 * @property {string} guid
 * @property {string} name
 * @property {string} spaceGuid
 * @property {'STARTED' | 'STOPPED'} state
 * @property {ProcessSpec[]} processes
 *
 * @typedef {object} Faults
 * @property {number} tokenLifetimeSeconds lifetime of issued access tokens
 * @property {number} invalidAuthTokenOnce next N API calls answer 401 CF-InvalidAuthToken (and revoke the token)
 * @property {number} rateLimited next N API calls answer 429 with a text/plain JSON body
 * @property {number} retryAfterSeconds Retry-After of those 429s
 * @property {number} statsUnavailable next N stats calls answer 503 CF-StatsUnavailable
 * @property {string[]} statsUnavailableFor apps (by name) whose stats calls always answer 503 CF-StatsUnavailable
 * @property {boolean} emptyUsage stats answer `usage: {}` with X-Cf-Warnings (metrics backend down)
 * @property {number} latencyMs added to every answer
 * @property {number} slowStatsMs added to stats answers only
 * @property {number} dropConnections next N requests (any path) have their connection destroyed
 * @property {number} serverErrors next N API calls answer 502
 * @property {number} pageSize largest page served, whatever per_page asks
 * @property {boolean} v3Disabled discovery lists no cloud_controller_v3 (legacy v2 only)
 * @property {boolean} v2Disabled discovery lists no cloud_controller_v2
 * @property {boolean} rejectCredentials UAA refuses every grant
 */

/** @returns {Faults} */
export function noFaults() {
  return {
    tokenLifetimeSeconds: 1199,
    invalidAuthTokenOnce: 0,
    rateLimited: 0,
    retryAfterSeconds: 1,
    statsUnavailable: 0,
    statsUnavailableFor: [],
    emptyUsage: false,
    latencyMs: 0,
    slowStatsMs: 0,
    dropConnections: 0,
    serverErrors: 0,
    pageSize: 5000,
    v3Disabled: false,
    v2Disabled: false,
    rejectCredentials: false,
  };
}

export const SPACE_GUID = '2f35885d-0c9d-4423-83ad-fd05066f8576';
export const OTHER_SPACE_GUID = '7c1fa6a0-4e7e-4b0c-9d1f-8d9a2b3c4d5e';

/** A deterministic v4-shaped GUID from a seed string. @param {string} seed */
export function guidFrom(seed) {
  const h = crypto.createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `count` apps with `instances` RUNNING web instances each; cpu = (app + 1) / 100 + index / 1000.
 * @param {number} count @param {number} instances @param {string} [prefix]
 */
export function makeApps(count, instances, prefix = 'app') {
  return Array.from({ length: count }, (_, a) =>
    makeApp(
      `${prefix}-${a}`,
      Array.from({ length: instances }, (_, i) => ({
        state: /** @type {const} */ ('RUNNING'),
        cpu: (a + 1) / 100 + i / 1000,
        cpuEntitlement: (a + 1) / 50 + i / 500,
        mem: (100 + a) * 1024 * 1024 + i,
        disk: (200 + a) * 1024 * 1024 + i,
        uptime: 1000 + i,
      })),
    ),
  );
}

/**
 * @typedef {object} AppOptions
 * @property {string} [spaceGuid]
 * @property {'STARTED' | 'STOPPED'} [state]
 * @property {number} [memoryMb]
 * @property {number} [diskMb]
 * @property {ProcessSpec[]} [extraProcesses]
 */

/**
 * @param {string} name @param {InstanceSpec[]} instances
 * @param {AppOptions} [options]
 * @returns {AppSpec}
 */
export function makeApp(name, instances, options = {}) {
  const spaceGuid = options.spaceGuid ?? SPACE_GUID;
  const guid = guidFrom(`app:${spaceGuid}:${name}`);
  return {
    guid,
    name,
    spaceGuid,
    state: options.state ?? 'STARTED',
    processes: [
      {
        guid: guidFrom(`process:${guid}:web`),
        type: 'web',
        memoryMb: options.memoryMb ?? 256,
        diskMb: options.diskMb ?? 1024,
        instances,
      },
      ...(options.extraProcesses ?? []),
    ],
  };
}

/**
 * The environment that points paasmon at a simulator (its default user, the apps of SPACE_GUID).
 * @param {{ url: string }} sim
 */
export const cfEnv = (sim) => ({
  CF_API: sim.url,
  CF_USERNAME: 'admin',
  CF_PASSWORD: 'admin-secret',
  CF_SPACE_GUID: SPACE_GUID,
});

/**
 * @param {object} options
 * @param {AppSpec[]} options.apps
 * @param {Record<string, string>} [options.users] username -> password
 * @param {Record<string, string>} [options.clients] client id -> secret
 * @param {string} [options.apiVersion]
 */
export async function startCfSimulator({
  apps,
  users = { admin: 'admin-secret' },
  clients = {},
  apiVersion = '3.190.0',
}) {
  const faults = noFaults();
  /** @type {Map<string, { exp: number, user: string }>} */
  const accessTokens = new Map();
  /** @type {Map<string, string>} */
  const refreshTokens = new Map();
  const counters = {
    requests: 0,
    statsRequests: 0,
    grants: /** @type {Record<string, number>} */ ({}),
    byPath: /** @type {Record<string, number>} */ ({}),
  };
  let inFlight = 0;
  let peakInFlight = 0;
  const state = { apps };
  /** @type {string} */
  let base = '';

  /**
   * @param {http.ServerResponse} res
   * @param {number} status
   * @param {unknown} body
   * @param {Record<string, string>} [headers]
   */
  const send = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  /** @param {string} title @param {number} code @param {string} detail */
  const v3Error = (title, code, detail) => ({ errors: [{ code, title, detail }] });

  /** @param {string} user */
  const issueToken = (user) => {
    const exp = Math.floor(Date.now() / 1000) + faults.tokenLifetimeSeconds;
    const payload = Buffer.from(JSON.stringify({ exp, user_name: user, jti: crypto.randomUUID() })).toString(
      'base64url',
    );
    const access = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.sig`;
    const refresh = `refresh-${crypto.randomUUID()}`;
    accessTokens.set(access, { exp: exp * 1000, user });
    refreshTokens.set(refresh, user);
    return {
      access_token: access,
      token_type: 'bearer',
      refresh_token: refresh,
      expires_in: faults.tokenLifetimeSeconds,
      scope: 'cloud_controller.read',
      jti: 'x',
    };
  };

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} body */
  const token = (req, res, body) => {
    const form = new URLSearchParams(body);
    const grant = form.get('grant_type') ?? '';
    counters.grants[grant] = (counters.grants[grant] ?? 0) + 1;
    if (faults.rejectCredentials)
      return send(res, 401, { error: 'unauthorized', error_description: 'Bad credentials' });
    const basic = req.headers.authorization === `Basic ${Buffer.from('cf:').toString('base64')}`;
    if (grant === 'password') {
      if (!basic) return send(res, 401, { error: 'invalid_client', error_description: 'Bad client credentials' });
      const user = form.get('username') ?? '';
      if (users[user] === undefined || users[user] !== form.get('password'))
        return send(res, 401, { error: 'unauthorized', error_description: 'Bad credentials' });
      return send(res, 200, issueToken(user));
    }
    if (grant === 'refresh_token') {
      const user = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!basic || !user)
        return send(res, 401, { error: 'invalid_token', error_description: 'Invalid refresh token' });
      return send(res, 200, issueToken(user));
    }
    if (grant === 'client_credentials') {
      const id = form.get('client_id') ?? '';
      if (clients[id] === undefined || clients[id] !== form.get('client_secret'))
        return send(res, 401, { error: 'invalid_client', error_description: 'Bad client credentials' });
      const issued = issueToken(id);
      return send(res, 200, { ...issued, refresh_token: undefined });
    }
    return send(res, 400, { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${grant}` });
  };

  /**
   * A v3 page of `items` with the real pagination object.
   * @param {URL} url @param {unknown[]} items
   */
  const page = (url, items) => {
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 50), faults.pageSize);
    const pageNo = Number(url.searchParams.get('page') ?? 1);
    const totalPages = Math.max(1, Math.ceil(items.length / perPage));
    /** @param {number} n */
    const link = (n) => {
      const u = new URL(url.pathname + url.search, base);
      u.searchParams.set('page', String(n));
      u.searchParams.set('per_page', String(perPage));
      return { href: u.toString() };
    };
    return {
      pagination: {
        total_results: items.length,
        total_pages: totalPages,
        first: link(1),
        last: link(totalPages),
        next: pageNo < totalPages ? link(pageNo + 1) : null,
        previous: pageNo > 1 ? link(pageNo - 1) : null,
      },
      resources: items.slice((pageNo - 1) * perPage, pageNo * perPage),
    };
  };

  /** @param {AppSpec} a */
  const appResource = (a) => ({
    guid: a.guid,
    name: a.name,
    state: a.state,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs4' } },
    relationships: { space: { data: { guid: a.spaceGuid } } },
    links: { self: { href: `${base}/v3/apps/${a.guid}` }, processes: { href: `${base}/v3/apps/${a.guid}/processes` } },
  });
  /** @param {AppSpec} a @param {ProcessSpec} p */
  const processResource = (a, p) => ({
    guid: p.guid,
    type: p.type,
    instances: p.instances.length,
    memory_in_mb: p.memoryMb,
    disk_in_mb: p.diskMb,
    relationships: { app: { data: { guid: a.guid } } },
    links: {
      self: { href: `${base}/v3/processes/${p.guid}` },
      stats: { href: `${base}/v3/processes/${p.guid}/stats` },
    },
  });

  /**
   * The v3 stats entry of one instance, in the shape its state has.
   * @param {ProcessSpec} p
   * @param {InstanceSpec} inst
   * @param {number} index
   */
  const statsEntry = (p, inst, index) => {
    const now = new Date().toISOString().replace('Z', '123456Z');
    if (inst.state === 'DOWN')
      return { type: p.type, index, state: 'DOWN', routable: null, uptime: 0, isolation_segment: null, details: null };
    if (inst.state === 'STARTING') {
      return {
        type: p.type,
        index,
        state: 'STARTING',
        routable: false,
        usage: { cpu: 0, cpu_entitlement: 0, disk: 0, log_rate: 0, mem: 0, time: now.replace(/\.\d+Z$/, '+00:00') },
        disk_quota: null,
        fds_quota: 16384,
        host: '',
        instance_internal_ip: '',
        instance_ports: null,
        isolation_segment: null,
        log_rate_limit: null,
        mem_quota: null,
        uptime: 0,
        details: null,
      };
    }
    const live = inst.live?.();
    /** @type {Record<string, unknown>} */
    const usage = faults.emptyUsage
      ? {}
      : {
          time: now,
          cpu: live?.cpu ?? inst.cpu ?? 0,
          mem: live?.mem ?? inst.mem ?? 0,
          disk: inst.disk ?? 0,
          log_rate: 0,
        };
    if (!faults.emptyUsage && inst.cpuEntitlement !== null)
      usage.cpu_entitlement = live?.cpuEntitlement ?? inst.cpuEntitlement ?? 0;
    return {
      type: p.type,
      index,
      instance_guid: guidFrom(`instance:${p.guid}:${index}`).slice(0, 28),
      state: inst.state,
      routable: inst.state === 'RUNNING',
      usage,
      host: '10.244.16.10',
      instance_internal_ip: '10.255.93.167',
      instance_ports: [
        { external: 64546, internal: 8080, external_tls_proxy_port: 61002, internal_tls_proxy_port: 61003 },
      ],
      uptime: live?.uptime ?? inst.uptime ?? 0,
      mem_quota: faults.emptyUsage ? null : p.memoryMb * 1024 * 1024,
      disk_quota: faults.emptyUsage ? null : p.diskMb * 1024 * 1024,
      fds_quota: 16384,
      isolation_segment: 'example_iso_segment',
      log_rate_limit: null,
      details: null,
    };
  };

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {URL} url */
  const api = async (req, res, url) => {
    const auth = req.headers.authorization ?? '';
    const bearer = auth.replace(/^bearer /i, '');
    if (!auth) return send(res, 401, v3Error('CF-NotAuthenticated', 10002, 'Authentication error'));
    const held = accessTokens.get(bearer);
    if (faults.invalidAuthTokenOnce > 0) {
      faults.invalidAuthTokenOnce -= 1;
      accessTokens.delete(bearer);
      return send(res, 401, v3Error('CF-InvalidAuthToken', 1000, 'Invalid Auth Token'));
    }
    if (!held || held.exp <= Date.now())
      return send(res, 401, v3Error('CF-InvalidAuthToken', 1000, 'Invalid Auth Token'));
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    if (faults.rateLimited > 0) {
      faults.rateLimited -= 1;
      res.writeHead(429, {
        'Content-Type': 'text/plain',
        'Retry-After': String(faults.retryAfterSeconds),
        'X-RateLimit-Limit': '20000',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': reset,
      });
      return res.end(JSON.stringify(v3Error('CF-RateLimitExceeded', 10013, 'Rate Limit Exceeded')));
    }
    if (faults.serverErrors > 0) {
      faults.serverErrors -= 1;
      return send(res, 502, { error: 'bad gateway' });
    }
    const rate = { 'X-RateLimit-Limit': '20000', 'X-RateLimit-Remaining': '19000', 'X-RateLimit-Reset': reset };
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
      return send(res, 200, page(url, found.map(appResource)), rate);
    }
    if (path === '/v3/processes') {
      const appGuids = list('app_guids');
      const found = state.apps
        .filter((a) => !appGuids.length || appGuids.includes(a.guid))
        .flatMap((a) => a.processes.map((p) => processResource(a, p)));
      return send(res, 200, page(url, found), rate);
    }
    const stats = /^\/v3\/processes\/([^/]+)\/stats$/.exec(path);
    if (stats) {
      counters.statsRequests += 1;
      const owner = state.apps.find((a) => a.processes.some((p) => p.guid === stats[1]));
      const process = owner?.processes.find((p) => p.guid === stats[1]);
      if (!process) return send(res, 404, v3Error('CF-ResourceNotFound', 10010, 'Process not found'));
      if (faults.slowStatsMs) await new Promise((r) => setTimeout(r, faults.slowStatsMs));
      if (faults.statsUnavailable > 0 || faults.statsUnavailableFor.includes(owner?.name ?? '')) {
        if (faults.statsUnavailable > 0) faults.statsUnavailable -= 1;
        return send(res, 503, v3Error('CF-StatsUnavailable', 200002, 'Stats server temporarily unavailable.'));
      }
      const headers = faults.emptyUsage
        ? { ...rate, 'X-Cf-Warnings': 'Stats%20server%20temporarily%20unavailable.' }
        : rate;
      return send(res, 200, { resources: process.instances.map((inst, i) => statsEntry(process, inst, i)) }, headers);
    }
    if (path === '/v2/apps' || /^\/v2\/spaces\/[^/]+\/apps$/.test(path)) {
      const q = url.searchParams.getAll('q');
      const spaceFromPath = /^\/v2\/spaces\/([^/]+)\/apps$/.exec(path)?.[1];
      const found = state.apps.filter((a) => {
        if (spaceFromPath && a.spaceGuid !== spaceFromPath) return false;
        return q.every((cond) => {
          const m = /^(name|guid|space_guid)( IN |:)(.*)$/.exec(cond);
          if (!m) return true;
          const values = m[2] === ' IN ' ? m[3].split(',') : [m[3]];
          const field = m[1] === 'name' ? a.name : m[1] === 'guid' ? a.guid : a.spaceGuid;
          return values.includes(field);
        });
      });
      const perPage = Math.min(Number(url.searchParams.get('results-per-page') ?? 50), faults.pageSize);
      const pageNo = Number(url.searchParams.get('page') ?? 1);
      const totalPages = Math.max(1, Math.ceil(found.length / perPage));
      const next = new URL(url.pathname + url.search, base);
      next.searchParams.set('page', String(pageNo + 1));
      return send(res, 200, {
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
    const v2stats = /^\/v2\/apps\/([^/]+)\/stats$/.exec(path);
    if (v2stats) {
      counters.statsRequests += 1;
      const app = state.apps.find((a) => a.guid === v2stats[1]);
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
        body[String(i)] =
          inst.state === 'DOWN'
            ? { state: 'DOWN', since: 1403140717.984577 }
            : {
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
      });
      return send(res, 200, body);
    }
    return send(res, 404, v3Error('CF-NotFound', 10000, 'Unknown request'));
  };

  const server = http.createServer(async (req, res) => {
    counters.requests += 1;
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });
    const url = new URL(req.url ?? '/', base);
    counters.byPath[url.pathname] = (counters.byPath[url.pathname] ?? 0) + 1;
    let body = '';
    for await (const chunk of req) body += chunk;
    if (faults.dropConnections > 0) {
      faults.dropConnections -= 1;
      req.socket.destroy();
      return;
    }
    if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
    if (url.pathname === '/') {
      /** @type {Record<string, unknown>} */
      const links = {
        self: { href: base },
        cloud_controller_v2: { href: `${base}/v2`, meta: { version: '2.155.0' } },
        cloud_controller_v3: { href: `${base}/v3`, meta: { version: apiVersion } },
        login: { href: base },
        uaa: { href: base },
        log_cache: { href: base },
      };
      if (faults.v3Disabled) delete links.cloud_controller_v3;
      if (faults.v2Disabled) delete links.cloud_controller_v2;
      return send(res, 200, { links });
    }
    if (url.pathname === '/oauth/token' && req.method === 'POST') return token(req, res, body);
    return api(req, res, url);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;

  return {
    url: base,
    faults,
    counters,
    state,
    get peakInFlight() {
      return peakInFlight;
    },
    /** Revokes every access token, as a UAA key rotation would. */
    revokeTokens() {
      accessTokens.clear();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
