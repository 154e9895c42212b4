// A Cloud Controller + UAA stand-in: a real HTTP server answering with the shapes of
// ../shared/reference/cloud-foundry.md, with faults that tests switch on. Shared by the tests and
// `paasmon demo` (sandbox/platform.js gives it live usage of real processes); never used against a real platform.
// The routes live in cf-simulator/: uaa.js, api.js (auth and faults), v3-routes.js, v2-routes.js.
import http from 'node:http';
import { once } from 'node:events';
import { answerApi } from './cf-simulator/api.js';
import { noFaults } from './cf-simulator/fixtures.js';
import { send } from './cf-simulator/reply.js';
import { createUaa } from './cf-simulator/uaa.js';

export { OTHER_SPACE_GUID, SPACE_GUID, cfEnv, guidFrom, makeApp, makeApps, noFaults } from './cf-simulator/fixtures.js';

/**
 * @typedef {import('./cf-simulator/fixtures.js').InstanceSpec} InstanceSpec
 * @typedef {import('./cf-simulator/fixtures.js').LiveUsage} LiveUsage
 * @typedef {import('./cf-simulator/fixtures.js').ProcessSpec} ProcessSpec
 * @typedef {import('./cf-simulator/fixtures.js').AppSpec} AppSpec
 * @typedef {import('./cf-simulator/fixtures.js').AppOptions} AppOptions
 * @typedef {import('./cf-simulator/fixtures.js').Faults} Faults
 */

/**
 * The root document: links to v2, v3, UAA and Log Cache, less the API versions a fault switched off.
 * @param {import('./cf-simulator/reply.js').SimulatorContext} context @param {string} apiVersion
 */
const discovery = ({ base, faults }, apiVersion) => {
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
  return { links };
};

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
  /** @type {import('./cf-simulator/reply.js').SimulatorContext} */
  const context = {
    faults: noFaults(),
    counters: { requests: 0, statsRequests: 0, grants: {}, byPath: {} },
    state: { apps },
    base: '',
  };
  const { faults, counters } = context;
  const uaa = createUaa({ context, users, clients });
  let inFlight = 0;
  let peakInFlight = 0;

  const server = http.createServer(async (req, res) => {
    counters.requests += 1;
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });
    const url = new URL(req.url ?? '/', context.base);
    counters.byPath[url.pathname] = (counters.byPath[url.pathname] ?? 0) + 1;
    let body = '';
    for await (const chunk of req) body += chunk;
    if (faults.dropConnections > 0) {
      faults.dropConnections -= 1;
      req.socket.destroy();
      return;
    }
    if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
    if (url.pathname === '/') return send(res, 200, discovery(context, apiVersion));
    if (url.pathname === '/oauth/token' && req.method === 'POST') return uaa.answerTokenRequest(req, res, body);
    return answerApi(context, uaa.accessTokens, req, res, url);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  context.base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;

  return {
    url: context.base,
    faults,
    counters,
    state: context.state,
    get peakInFlight() {
      return peakInFlight;
    },
    /** Revokes every access token, as a UAA key rotation would. */
    revokeTokens() {
      uaa.accessTokens.clear();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
