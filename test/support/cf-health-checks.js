// A stand-in for Diego's health checks of one app instance (tests only): it reads the app's settings
// from manifest.yml and applies them the way Cloud Foundry does. Start: the liveness check every
// 2 s until it passes (failing for `timeout` s, 60 by default, crashes the instance). Running:
// liveness every `health-check-interval` s (30 by default), each request given
// `health-check-invocation-timeout` s (1 by default); an http check passes on 200 only, and the
// first failure crashes the instance, which is killed and started again. Readiness
// (`readiness-health-check-*`, same defaults) only records whether the instance would be routed.
import fs from 'node:fs';
import YAML from 'yaml';

/** Diego's check interval while an instance starts (not configurable). */
const STARTUP_INTERVAL_MS = 2000;

/**
 * @typedef {object} Check
 * @property {string} type 'http', 'port' or 'process'
 * @property {string} endpoint
 * @property {number} invocationTimeoutS
 * @property {number} intervalS
 *
 * @typedef {object} HealthCheckSettings
 * @property {Check & { startTimeoutS: number }} liveness
 * @property {Check} readiness
 */

/**
 * The health-check settings of `appName` in a manifest, with Cloud Foundry's defaults.
 * @param {string} manifestText @param {string} appName
 * @returns {HealthCheckSettings}
 */
export function healthCheckSettings(manifestText, appName) {
  const app = YAML.parse(manifestText).applications.find((/** @type {any} */ a) => a.name === appName);
  if (!app) throw new Error(`no application ${appName} in the manifest`);
  return {
    liveness: {
      type: app['health-check-type'] ?? 'port',
      endpoint: app['health-check-http-endpoint'] ?? '/',
      invocationTimeoutS: app['health-check-invocation-timeout'] ?? 1,
      intervalS: app['health-check-interval'] ?? 30,
      startTimeoutS: app.timeout ?? 60,
    },
    readiness: {
      type: app['readiness-health-check-type'] ?? 'process',
      endpoint: app['readiness-health-check-http-endpoint'] ?? '/',
      invocationTimeoutS: app['readiness-health-check-invocation-timeout'] ?? 1,
      intervalS: app['readiness-health-check-interval'] ?? 30,
    },
  };
}

/** @param {string} file @param {string} appName */
export const manifestSettings = (file, appName) => healthCheckSettings(fs.readFileSync(file, 'utf8'), appName);

/**
 * @typedef {object} Instance
 * @property {import('node:child_process').ChildProcess} child
 * @property {string} base http://127.0.0.1:<port>
 * @property {Promise<unknown>} exited
 *
 * @typedef {object} CheckResult
 * @property {number} at ms since the epoch
 * @property {'startup' | 'liveness' | 'readiness'} kind
 * @property {number | undefined} pid
 * @property {boolean} ok
 * @property {string} outcome the status code, or why no answer came
 */

/**
 * One http check as Diego's healthcheck does it: GET, 200 within the invocation timeout.
 * @param {string} base @param {Check} check
 * @returns {Promise<{ ok: boolean, outcome: string }>}
 */
async function probe(base, check) {
  if (check.type !== 'http') throw new Error(`health-check-type ${check.type} is not simulated here`);
  try {
    const response = await fetch(`${base}${check.endpoint}`, {
      signal: AbortSignal.timeout(check.invocationTimeoutS * 1000),
    });
    await response.arrayBuffer();
    return { ok: response.status === 200, outcome: String(response.status) };
  } catch (err) {
    const error = /** @type {Error & { cause?: { code?: string } }} */ (err);
    if (error.name === 'TimeoutError') return { ok: false, outcome: 'timeout' };
    return { ok: false, outcome: `no answer (${error.cause?.code ?? error.message})` };
  }
}

/**
 * Runs instances of an app under its health checks until `stop()`.
 * @param {HealthCheckSettings} settings
 * @param {() => Promise<Instance>} start starts one instance and resolves once it listens
 */
export function supervise(settings, start) {
  /** @type {CheckResult[]} */
  const checks = [];
  /** @type {{ at: number, pid: number | undefined, reason: string }[]} */
  const crashes = [];
  /** @type {number[]} */
  const pids = [];
  /** @type {Instance | undefined} */
  let instance;
  let stopped = false;
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

  /** @param {CheckResult['kind']} kind @param {Check} check */
  const runCheck = async (kind, check) => {
    const current = /** @type {Instance} */ (instance);
    const result = await probe(current.base, check);
    checks.push({ at: Date.now(), kind, pid: current.child.pid, ...result });
    return result;
  };

  /** Waits `ms`, or less once stopped. @param {number} ms */
  const wait = async (ms) => {
    const until = Date.now() + ms;
    while (!stopped && Date.now() < until) await sleep(Math.min(200, until - Date.now()));
  };

  /** @param {string} reason */
  const crash = async (reason) => {
    const current = /** @type {Instance} */ (instance);
    crashes.push({ at: Date.now(), pid: current.child.pid, reason });
    current.child.kill('SIGKILL');
    await current.exited;
  };

  /** One instance from start to crash (or stop). */
  const lifetime = async () => {
    instance = await start();
    pids.push(/** @type {number} */ (instance.child.pid));
    const startBy = Date.now() + settings.liveness.startTimeoutS * 1000;
    for (;;) {
      if (stopped) return;
      const { ok, outcome } = await runCheck('startup', settings.liveness);
      if (ok) break;
      if (Date.now() > startBy) return crash(`not healthy within ${settings.liveness.startTimeoutS} s (${outcome})`);
      await wait(STARTUP_INTERVAL_MS);
    }
    let nextReadiness = settings.readiness.type === 'http' ? Date.now() : Infinity;
    let nextLiveness = Date.now() + settings.liveness.intervalS * 1000;
    while (!stopped) {
      if (Date.now() >= nextReadiness) {
        await runCheck('readiness', settings.readiness);
        nextReadiness += settings.readiness.intervalS * 1000;
      }
      if (Date.now() >= nextLiveness) {
        const { ok, outcome } = await runCheck('liveness', settings.liveness);
        if (!ok && !stopped) return crash(`liveness ${settings.liveness.endpoint}: ${outcome}`);
        nextLiveness += settings.liveness.intervalS * 1000;
      }
      await wait(Math.max(0, Math.min(nextLiveness, nextReadiness) - Date.now()));
    }
  };

  const running = (async () => {
    while (!stopped) await lifetime();
  })();

  return {
    checks,
    crashes,
    /** Every process started so far, in order. */
    pids,
    get instance() {
      return instance;
    },
    /** Stops checking and the instance (SIGTERM, as `cf stop`); resolves with how it exited. */
    async stop() {
      stopped = true;
      await running;
      instance?.child.kill('SIGTERM');
      return instance?.exited;
    },
  };
}
