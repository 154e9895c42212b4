// `paasmon demo`: the whole chain on one machine, no Cloud Foundry account. PostgreSQL (embedded, or
// DATABASE_URL), the sample app's instances (Node.js, Java) behind a gorouter stand-in and a Cloud
// Controller + UAA stand-in (sandbox/platform.js), `paasmon collect` polling that stand-in every second
// and following the router's access log, one `paasmon loadgen` run per implementation, instance count
// and load level, then `paasmon correlate` and the comparison of the runs with a scalability fit per
// implementation. Every child runs in its own process group and is stopped, with the temporary
// directory removed, on success, failure and Ctrl-C.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../core/errors.js';
import { ensureEmbeddedServer, runningServer, stopEmbeddedServer } from '../../exporters/postgres/embedded/server.js';
import { JAVA_INSTALL_HINT, compileJavaApp, findJava } from '../../sandbox/bulletin-board-java/launch.js';
import { createSupervisor } from '../../sandbox/supervisor.js';
import { keepRunning } from './demo/keep.js';
import { demoOptions } from './demo/options.js';
import { compareRounds, runRounds } from './demo/regression.js';
import { runSweep } from './demo/runs.js';
import { startServices } from './demo/setup.js';
import { closingSentences, implementationTables, scalingLines, writeComparison } from './demo/summary.js';

export { demoOptions };

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));
const APP = 'bulletin-board';

class Interrupted extends Error {}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {import('./demo/options.js').DemoFlags} flags
 * @returns {Promise<number>}
 */
export async function demoCommand(config, { log, out }, flags) {
  const options = demoOptions(flags);
  // Not settings: what the demo's children need to run (PATH) and where they may keep files (HOME).
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PAASMON_JDBC_JAR: config.jdbcJar };
  if (!fs.existsSync('/proc/self/stat'))
    throw new ConfigError('paasmon demo needs Linux: instance CPU and memory are read from /proc', {
      variable: 'demo',
    });
  const interrupt = new AbortController();
  // Kept until everything is stopped: a second Ctrl-C must not end the demo half-way through its cleanup.
  const onSignal = () => interrupt.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-demo-'));
  // The embedded PostgreSQL runs as its own user when paasmon runs as root: it must enter this directory.
  fs.chmodSync(tmp, 0o755);
  const supervisor = createSupervisor(tmp);
  // The demo speaks through its progress lines; the children's logs go to files.
  const quietLog = log.isLevelEnabled('debug') ? log : log.child({}, { level: 'warn' });
  // The demo's own embedded server (its own session: the terminal's Ctrl-C never reaches it), stopped at the end.
  const dataDir = path.join(tmp, 'data');
  /** @type {Promise<import('../../exporters/postgres/embedded/server.js').EmbeddedServer> | undefined} */
  let embedded;
  /** @type {import('../../exporters/postgres/database.js').Database | undefined} */
  let database;
  try {
    return await runDemo({
      config,
      log: quietLog,
      out,
      env,
      options,
      tmp,
      startEmbedded: () => {
        embedded = ensureEmbeddedServer(dataDir, { log: quietLog });
        return embedded;
      },
      supervisor,
      signal: interrupt.signal,
      setDatabase: (d) => {
        database = d;
      },
    });
  } catch (err) {
    if (err instanceof Interrupted || interrupt.signal.aborted) {
      out('\ninterrupted: stopping everything');
      return 130;
    }
    throw err;
  } finally {
    await database?.close();
    await supervisor.stopAll();
    // Last, once nothing writes to it any more; a start still under way (Ctrl-C came first) is waited for.
    if (embedded) {
      await embedded.catch(() => {});
      await stopEmbedded(dataDir).catch((err) => log.error({ err }, 'demo: stopping PostgreSQL'));
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Stops the demo's embedded server and waits for its process to be gone: pg_ctl returns once the
 * server has removed its pid file, a moment before the process ends.
 * @param {string} dataDir
 */
async function stopEmbedded(dataDir) {
  const pid = runningServer(dataDir)?.pid;
  await stopEmbeddedServer(dataDir);
  for (let waited = 0; pid !== undefined && waited < 5000; waited += 50) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The implementations that can run here; Java is compiled into `tmp` when it is one of them.
 * @param {import('./demo/options.js').DemoOptions} options @param {Record<string, string | undefined>} env
 * @param {string} tmp @param {(line: string) => void} out
 */
async function prepareImplementations(options, env, tmp, out) {
  /** @type {Record<string, string>} */
  const settings = {
    CORES_PER_INSTANCE: String(options.coresPerInstance),
    METRICS_INTERVAL_MS: String(options.metricsIntervalMs),
  };
  if (!options.impls.includes('java')) return { impls: options.impls, settings };
  const java = findJava(env);
  if (java.missing !== undefined) {
    const impls = options.impls.filter((i) => i !== 'java');
    out(`java: not run (${java.missing}); for the Java comparison: ${JAVA_INSTALL_HINT}`);
    return { impls: impls.length ? impls : ['node'], settings };
  }
  const classesDir = path.join(tmp, 'java-classes');
  await compileJavaApp(java, classesDir);
  Object.assign(settings, { JAVA_BIN: java.java, PAASMON_JDBC_JAR: java.jar, JAVA_CLASSES_DIR: classesDir });
  return { impls: options.impls, settings };
}

/**
 * What the demo is about to run. @param {import('./demo/options.js').DemoOptions} options @param {string[]} impls
 */
function headerLine(options, impls) {
  const cores = `${options.coresPerInstance} core${options.coresPerInstance === 1 ? '' : 's'} per instance`;
  if (options.regression) {
    const { rounds, delayMs } = options.regression;
    return (
      `paasmon demo --regression: ${impls[0]} sample app "${APP}" at ${options.instances[0]} instance(s) x ` +
      `${options.parallel[0]} requests in flight, ${options.durationText} each, ${cores}: ${rounds} baseline ` +
      `rounds and ${rounds} candidate rounds with ${delayMs} ms added behind the router (in the app), ` +
      'interleaved, the app restarted before each'
    );
  }
  const runs = impls.length * options.instances.length * options.loads.length;
  const rates = options.rates.length ? ` and ${options.rates.join(', ')} req/s offered` : '';
  return (
    `paasmon demo: ${impls.join(' and ')} sample app "${APP}" at ${options.instances.join(', ')} instance(s) ` +
    `x ${options.parallel.join(', ')} requests in flight${rates}, ${options.durationText} each (${runs} runs), ${cores}`
  );
}

/**
 * The sweep: one run per implementation, instance count and load, then `paasmon correlate`, the
 * comparison of the runs written and printed with the scalability fit.
 * @param {import('./demo/runs.js').RunContext} ctx
 * @param {{ baseEnv: Record<string, string>, databaseUrl: string }} correlateWith
 * @returns {Promise<string>} the closing sentences
 */
async function sweepAndReport(ctx, { baseEnv, databaseUrl }) {
  const { pool, out, options, platform, supervisor } = ctx;
  const runIds = await runSweep(ctx);
  out('[5/5] paasmon correlate');
  const correlate = supervisor.start('correlate', CLI, ['correlate'], {
    env: { ...baseEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
  });
  const correlated = await ctx.unlessInterrupted(correlate.exited);
  if (correlated.code !== 0) throw new Error(`paasmon correlate failed:\n${correlate.tail()}`);
  out(fs.readFileSync(correlate.logFile, 'utf8').trimEnd());

  const scaleBy = options.parallel.length > 1 ? 'parallel' : 'instances';
  const { comparison, files } = await writeComparison(pool, runIds, scaleBy, options.out);
  const entitlement = `each instance entitled to ${options.coresPerInstance} core(s)`;
  const pinned = platform.pinning ? `, CPU limit ${platform.pinning}` : ', pinned with taskset';
  out(`\nThe runs per implementation (${entitlement}${pinned}):\n${implementationTables(comparison).join('\n\n')}`);
  out(
    `\nScalability (Universal Scalability Law, load: ${scaleBy === 'parallel' ? 'requests in flight' : 'instances'}):`,
  );
  for (const line of scalingLines(comparison)) out(`  ${line}`);
  out(
    `\nwritten: ${files.table}, ${files.html} (open it in a browser: charts and the numbers, offline), ${files.json}`,
  );
  return closingSentences(comparison).join(' ');
}

/**
 * @param {object} deps
 * @param {import('../config/index.js').Config} deps.config
 * @param {import('pino').Logger} deps.log
 * @param {(line: string) => void} deps.out
 * @param {Record<string, string | undefined>} deps.env
 * @param {import('./demo/options.js').DemoOptions} deps.options
 * @param {string} deps.tmp
 * @param {() => Promise<import('../../exporters/postgres/embedded/server.js').EmbeddedServer>} deps.startEmbedded
 *   the demo's own embedded PostgreSQL (without DATABASE_URL)
 * @param {ReturnType<typeof createSupervisor>} deps.supervisor
 * @param {AbortSignal} deps.signal
 * @param {(database: import('../../exporters/postgres/database.js').Database) => void} deps.setDatabase
 */
async function runDemo({ config, log, out, env, options, tmp, startEmbedded, supervisor, signal, setDatabase }) {
  /**
   * Waits for `promise` unless Ctrl-C, or the end of a child the demo cannot go on without, comes first.
   * @template T @param {Promise<T>} promise @returns {Promise<T>}
   */
  const unlessInterrupted = (promise) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Interrupted());
      const onAbort = () => reject(new Interrupted());
      signal.addEventListener('abort', onAbort, { once: true });
      supervisor.failed.catch(reject);
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  const sleep = (/** @type {number} */ ms) => unlessInterrupted(new Promise((r) => setTimeout(r, ms)));
  const baseEnv = { PATH: env.PATH ?? '', HOME: env.HOME ?? tmp, CORRELATION_HEADER: config.correlationHeader };

  const { impls, settings } = await unlessInterrupted(prepareImplementations(options, env, tmp, out));
  out(headerLine(options, impls));
  const services = await startServices({
    ...{ config, log, out, app: APP, tmp, baseEnv, platformSettings: settings },
    ...{ startEmbedded, supervisor, unlessInterrupted, setDatabase },
  });
  const { pool, databaseUrl, platform, collect, metricsPort, metricsUrl } = services;
  const runContext = {
    ...{ pool, app: APP, out, options, impls, platform, collect, supervisor, unlessInterrupted, sleep },
    env: { ...baseEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
  };
  let closing;
  if (options.regression) {
    const ids = await runRounds({ ...runContext, regression: options.regression });
    closing = await compareRounds({ ...runContext, ids, delayMs: options.regression.delayMs });
  } else {
    closing = await sweepAndReport(runContext, { baseEnv, databaseUrl });
  }
  out(
    `metrics: ${metricsUrl} served by paasmon collect during the runs` +
      (options.keep ? '' : ' (--keep keeps everything up)'),
  );
  out(`\n${closing}`);

  if (!options.keep) return 0;
  await keepRunning({
    ...{ out, env, tmp, supervisor, metricsPort, databaseUrl, urlFile: services.urlFile },
    ...{ routerUrl: platform.routerUrl, sleep },
  });
  await new Promise((resolve) =>
    signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve, { once: true }),
  );
  out('\nstopping everything');
  return 0;
}
