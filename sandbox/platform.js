// A one-machine stand-in for the parts of Cloud Foundry paasmon talks to, for `paasmon demo`:
// it runs the sample app's instances as real processes (as Diego runs containers), routes to them
// and writes gorouter access-log lines (gorouter-standin.js), and answers the Cloud Controller v3
// and UAA endpoints (cf-simulator.js) with each instance's real CPU and memory from /proc.
//
// Run as a child with an IPC channel (startPlatformChild below); settings come from the environment.
// Messages in: { type: 'scale', instances: n, impl, delayMs } (every instance restarted, as `cf scale` + restart;
// impl: node or java; delayMs: added by the app to every answer but /health, BULLETIN_BOARD_DELAY_MS).
// Messages out: { type: 'ready', routerUrl, apiUrl, appGuid, pinning },
// { type: 'scaled', instances: [{ index, pid, port, cpus }] },
// { type: 'error', message }. Exits, stopping every instance, on SIGTERM, SIGINT or when the parent goes away.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { instanceCommand, pinning } from './instance-command.js';
import { makeApp, startCfSimulator } from './cf-simulator.js';
import { startGorouterStandin } from './gorouter-standin.js';
import { createProcUsage, onInterval } from './proc-usage.js';
import { freePort } from '../core/ports.js';

const START_TIMEOUT_MS = 15_000;

/**
 * @typedef {object} PlatformOptions
 * @property {string} appName
 * @property {string} databaseUrl what the app instances connect to
 * @property {string} logFile the router's access log
 * @property {string} username UAA user the collector logs in as
 * @property {string} password
 * @property {string} correlationHeader logged by the router as an extra header
 * @property {number} coresPerInstance each instance's CPU entitlement, pinned with taskset where it can be
 * @property {number} [metricsIntervalMs] measure each instance on this interval, as Diego does, and answer
 *   the latest measurement in between; without it, a fresh measurement at every stats call
 * @property {{ java?: string, jar?: string, classesDir?: string }} java the compiled Java app, when it runs
 */

/** @param {string} url @param {number} timeoutMs */
async function waitHealthy(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`app instance did not answer ${url} within ${timeoutMs / 1000} s`);
}

/**
 * @typedef {{ child: import('node:child_process').ChildProcess, port: number, stopping: boolean,
 *   cpus: number[] | null }} RunningInstance
 */

/** @param {PlatformOptions} options */
export async function startPlatform(options) {
  const app = makeApp(options.appName, [], { memoryMb: 256, diskMb: 1024 });
  const web = app.processes[0];
  const api = await startCfSimulator({ apps: [app], users: { [options.username]: options.password } });
  const router = await startGorouterStandin({
    backends: [],
    appGuid: app.guid,
    host: `${options.appName}.apps.sandbox.local`,
    logFile: options.logFile,
    extraHeaders: [options.correlationHeader],
  });
  /** @type {RunningInstance[]} */
  let running = [];
  const pin = pinning(options.coresPerInstance, process.env);

  async function stopInstances() {
    router.setBackends([]);
    const stopping = running;
    running = [];
    await Promise.all(stopping.map(stopInstance));
  }

  /**
   * Restarts the app with `count` instances of `impl`; resolves once every one answers.
   * @param {number} count @param {string} impl @param {number} [delayMs] added by the app to each answer
   */
  async function scale(count, impl, delayMs = 0) {
    await stopInstances();
    web.instances = [];
    for (let index = 0; index < count; index++) {
      const { spec, instance } = launchInstance(options, pin, { impl, delayMs }, index, await freePort());
      web.instances.push(spec);
      running.push(instance);
    }
    await Promise.all(
      running.map(async ({ child, port }, index) => {
        await waitHealthy(`http://127.0.0.1:${port}/health`, START_TIMEOUT_MS);
        showRunning(web.instances[index], /** @type {number} */ (child.pid), options);
      }),
    );
    router.setBackends(running.map(({ port }) => `http://127.0.0.1:${port}`));
    return running.map(({ child, port, cpus }, index) => ({
      index,
      pid: /** @type {number} */ (child.pid),
      port,
      cpus,
    }));
  }

  return {
    pinning: pin.note,
    appGuid: app.guid,
    apiUrl: api.url,
    routerUrl: router.url,
    scale,
    async stop() {
      await stopInstances();
      await router.close();
      await api.close();
    },
  };
}

/**
 * Starts one app instance process on `port`; its spec, as the Cloud Controller shows it, is STARTING
 * until it answers, then DOWN when stopped or CRASHED when it exits by itself.
 * @param {PlatformOptions} options @param {ReturnType<typeof pinning>} pin
 * @param {{ impl: string, delayMs: number }} app @param {number} index @param {number} port
 */
function launchInstance(options, pin, { impl, delayMs }, index, port) {
  const { command, args, cpus } = instanceCommand({
    impl,
    index,
    cores: options.coresPerInstance,
    pin,
    java: options.java,
  });
  const child = spawn(command, args, {
    env: {
      ...process.env,
      PORT: String(port),
      CF_INSTANCE_INDEX: String(index),
      DATABASE_URL: options.databaseUrl,
      BULLETIN_BOARD_DELAY_MS: String(delayMs),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  /** @type {import('./cf-simulator.js').InstanceSpec} */
  const spec = { state: 'STARTING' };
  /** @type {RunningInstance} */
  const instance = { child, port, stopping: false, cpus };
  child.once('exit', () => {
    spec.state = instance.stopping ? 'DOWN' : 'CRASHED';
    delete spec.live;
  });
  return { spec, instance };
}

/**
 * An instance that answers: RUNNING, its usage read from /proc when the Cloud Controller is asked, or
 * at most once per `metricsIntervalMs` (measured at the first ask after each interval's end).
 * @param {import('./cf-simulator.js').InstanceSpec} spec @param {number} pid
 * @param {Pick<PlatformOptions, 'coresPerInstance' | 'metricsIntervalMs'>} options
 */
function showRunning(spec, pid, { coresPerInstance, metricsIntervalMs = 0 }) {
  const usage = createProcUsage(pid);
  const measure = () => {
    const now = usage();
    return now && { ...now, cpuEntitlement: now.cpu / coresPerInstance };
  };
  Object.assign(spec, { state: 'RUNNING', live: metricsIntervalMs ? onInterval(measure, metricsIntervalMs) : measure });
}

/** SIGTERM, then SIGKILL if it has not exited within five seconds. @param {RunningInstance} instance */
async function stopInstance(instance) {
  instance.stopping = true;
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = once(instance.child, 'exit');
  instance.child.kill('SIGTERM');
  const timer = setTimeout(() => instance.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the platform as a child process of `supervisor` and speaks its IPC protocol for the parent.
 * @param {ReturnType<typeof import('./supervisor.js').createSupervisor>} supervisor
 * @param {Record<string, string>} env PLATFORM_APP_NAME, DATABASE_URL, ROUTER_LOG_FILE, CF_USERNAME, CF_PASSWORD, ...
 * @param {number} timeoutMs for starting and for each scaling
 */
export async function startPlatformChild(supervisor, env, timeoutMs) {
  const child = supervisor.start('platform', process.execPath, [fileURLToPath(import.meta.url)], {
    ipc: true,
    essential: true,
    env,
  });
  const ready = await nextMessage(child, 'ready', timeoutMs);
  return {
    /** @type {string} */ routerUrl: ready.routerUrl,
    /** @type {string} */ apiUrl: ready.apiUrl,
    /** @type {string | null} why instances are not pinned to their entitlement */ pinning: ready.pinning,
    /**
     * Restarts the app with `instances` instances of `impl`, resolved once every one answers.
     * @param {number} instances @param {string} impl @param {number} [delayMs] added by the app to each answer
     * @returns {Promise<Array<{ index: number, pid: number, port: number, cpus: number[] | null }>>}
     */
    async scale(instances, impl, delayMs = 0) {
      child.process.send?.({ type: 'scale', instances, impl, delayMs });
      return (await nextMessage(child, 'scaled', timeoutMs)).instances;
    },
  };
}

/**
 * The next message of `type` from the platform child, or its failure.
 * @param {import('./supervisor.js').Child} platform @param {string} type @param {number} timeoutMs
 * @returns {Promise<any>}
 */
function nextMessage(platform, type, timeoutMs) {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      platform.process.off('message', onMessage);
      platform.process.off('exit', onExit);
    };
    /** @param {any} message */
    const onMessage = (message) => {
      if (message?.type === type) {
        cleanup();
        resolve(message);
      } else if (message?.type === 'error') {
        cleanup();
        reject(new Error(`platform stand-in: ${message.message}`));
      }
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`platform stand-in exited; its last output:\n${platform.tail()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`platform stand-in: no "${type}" within ${timeoutMs / 1000} s:\n${platform.tail()}`));
    }, timeoutMs);
    platform.process.on('message', onMessage);
    platform.process.once('exit', onExit);
  });
}

/** Entry point of the child process. */
async function main() {
  const env = process.env;
  const send = (/** @type {unknown} */ message) => process.send?.(message);
  const platform = await startPlatform({
    appName: env.PLATFORM_APP_NAME ?? 'bulletin-board',
    databaseUrl: env.DATABASE_URL ?? '',
    logFile: env.ROUTER_LOG_FILE ?? 'access.log',
    username: env.CF_USERNAME ?? 'admin',
    password: env.CF_PASSWORD ?? '',
    correlationHeader: env.CORRELATION_HEADER ?? 'X-Correlation-Id',
    coresPerInstance: Number(env.CORES_PER_INSTANCE ?? 1),
    metricsIntervalMs: Number(env.METRICS_INTERVAL_MS ?? 0),
    java: { java: env.JAVA_BIN, jar: env.PAASMON_JDBC_JAR, classesDir: env.JAVA_CLASSES_DIR },
  });
  let stopping;
  const stop = () => {
    stopping ??= platform.stop().finally(() => process.exit(0));
    return stopping;
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
  process.on('message', (/** @type {any} */ message) => {
    if (message?.type !== 'scale') return;
    platform.scale(Number(message.instances), String(message.impl ?? 'node'), Number(message.delayMs ?? 0)).then(
      (instances) => send({ type: 'scaled', instances }),
      (err) => send({ type: 'error', message: err.message }),
    );
  });
  send({
    type: 'ready',
    routerUrl: platform.routerUrl,
    apiUrl: platform.apiUrl,
    appGuid: platform.appGuid,
    pinning: platform.pinning,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`platform: ${err.message}\n`);
    process.exit(1);
  });
}
