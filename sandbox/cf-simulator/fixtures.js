// The simulated platform's data: app and instance specs, the fault switches and their defaults, GUIDs.
import crypto from 'node:crypto';

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
