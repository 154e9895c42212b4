// `paasmon demo`: the whole chain on one machine, no Cloud Foundry account. PostgreSQL (embedded, or
// DATABASE_URL), the sample app's instances behind a gorouter stand-in and a Cloud Controller + UAA
// stand-in (sandbox/platform.js), `paasmon collect` polling that stand-in every second and following
// the router's access log, one `paasmon loadgen` run per instance count, then `paasmon correlate`
// and the comparison of the runs. Every child runs in its own process group and is stopped, with
// the temporary directory removed, on success, failure and Ctrl-C.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../core/errors.js';
import { openDatabase } from '../../exporters/postgres/database.js';
import {
  embeddedUrl,
  ensureEmbeddedServer,
  freePort,
  runningServer,
  stopEmbeddedServer,
} from '../../exporters/postgres/embedded-server.js';
import { migrate } from '../../exporters/postgres/migrate.js';
import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { startRun, stopRun } from '../../exporters/postgres/queries/runs.js';
import { seedBulletinBoard } from '../../sandbox/bulletin-board/schema.js';
import { startPlatformChild } from '../../sandbox/platform.js';
import { createSupervisor } from '../../sandbox/supervisor.js';
import { durationFlag, numberFlag } from './flags.js';
import { formatTable } from './format.js';

const CLI = fileURLToPath(new URL('../cli.js', import.meta.url));
const PROMETHEUS_DIR = fileURLToPath(new URL('../../prometheus/', import.meta.url));
const APP = 'bulletin-board';
const IMPLEMENTATIONS = ['node'];
const START_TIMEOUT_MS = 60_000;
/** How long the router records of a finished run may take to be ingested and matched. */
const CORRELATION_TIMEOUT_MS = 30_000;

/**
 * @typedef {object} DemoFlags
 * @property {string} duration
 * @property {string} instances
 * @property {string} impl
 * @property {string} parallel
 * @property {boolean} [keep]
 * @property {string} out
 */

class Interrupted extends Error {}

/** @param {DemoFlags} flags */
export function demoOptions(flags) {
  const durationMs = /** @type {number} */ (durationFlag(flags.duration, '--duration'));
  const instances = flags.instances.split(',').map((s) => s.trim());
  if (!instances.length || instances.some((n) => !/^\d+$/.test(n) || Number(n) < 1 || Number(n) > 16)) {
    throw new ConfigError(
      '--instances must be a comma list of instance counts from 1 to 16 such as 1,2,4, ' +
        `got ${JSON.stringify(flags.instances)}`,
      { variable: '--instances' },
    );
  }
  if (!IMPLEMENTATIONS.includes(flags.impl)) {
    throw new ConfigError(
      `--impl must be one of ${IMPLEMENTATIONS.join(', ')} (the sample apps shipped in sandbox/), ` +
        `got ${JSON.stringify(flags.impl)}`,
      { variable: '--impl' },
    );
  }
  const parallel = /** @type {number} */ (numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }));
  return {
    durationMs,
    durationText: flags.duration,
    instances: instances.map(Number),
    impl: flags.impl,
    parallel,
    keep: Boolean(flags.keep),
    out: path.resolve(flags.out),
  };
}

/** The executable `name` on PATH, if any. @param {string} name @param {Record<string, string | undefined>} env */
function onPath(name, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

/**
 * The stop-gap comparison of the runs from the run_summary view, until `paasmon report` lands.
 * @param {import('pg').Pool} pool @param {number[]} runIds
 */
async function comparisonTable(pool, runIds) {
  const { rows } = await pool.query(
    `SELECT s.*, t.instances FROM run_summary s JOIN test_runs t ON t.id = s.run_id
    WHERE s.run_id = ANY($1::bigint[]) ORDER BY s.run_id`,
    [runIds],
  );
  /** @param {number | null} v @param {number} digits */
  const n = (v, digits) => (v === null || v === undefined ? '-' : Number(v).toFixed(digits));
  return formatTable(
    [
      'run',
      'label',
      'instances',
      'requests',
      'throughput rps',
      'e2e p50 ms',
      'e2e p95 ms',
      'e2e p99 ms',
      'router p95 ms',
      'cpu % of core (avg)',
      'cpu utilization %',
      'rps per cpu %',
      'matched %',
    ],
    rows.map((r) => [
      String(r.run_id),
      r.label,
      String(r.instances),
      String(r.requests),
      n(r.throughput_rps, 1),
      n(r.e2e_p50_ms, 2),
      n(r.e2e_p95_ms, 2),
      n(r.e2e_p99_ms, 2),
      n(r.router_p95_ms, 2),
      n(r.cpu_percent_avg, 1),
      n(r.cpu_utilization === null ? null : r.cpu_utilization * 100, 1),
      n(r.throughput_per_cpu_percent, 2),
      n(r.matched_ratio === null ? null : r.matched_ratio * 100, 1),
    ]),
    new Set([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
  );
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {DemoFlags} flags
 * @returns {Promise<number>}
 */
export async function demoCommand(config, { log, out }, flags) {
  const options = demoOptions(flags);
  // Not settings: what the demo's children need to run (PATH) and where they may keep files (HOME).
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
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
  /** @type {Promise<import('../../exporters/postgres/embedded-server.js').EmbeddedServer> | undefined} */
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
 * @param {object} deps
 * @param {import('../config/index.js').Config} deps.config
 * @param {import('pino').Logger} deps.log
 * @param {(line: string) => void} deps.out
 * @param {Record<string, string | undefined>} deps.env
 * @param {ReturnType<typeof demoOptions>} deps.options
 * @param {string} deps.tmp
 * @param {() => Promise<import('../../exporters/postgres/embedded-server.js').EmbeddedServer>} deps.startEmbedded
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

  out(
    `paasmon demo: ${options.impl} sample app "${APP}" at ${options.instances.join(', ')} instance(s), ` +
      `${options.durationText} each, ${options.parallel} requests in flight`,
  );
  out(`[1/5] PostgreSQL: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded server in a temporary directory'}`);
  const databaseUrl = config.databaseUrl ?? embeddedUrl(await unlessInterrupted(startEmbedded()));
  const database = await unlessInterrupted(openDatabase({ ...config, databaseUrl }, { log }));
  setDatabase(database);
  const pool = database.pool;
  await unlessInterrupted(migrate(pool, log));
  await unlessInterrupted(seedBulletinBoard(pool));
  const urlFile = path.join(tmp, 'database-url');
  fs.writeFileSync(urlFile, `${databaseUrl}\n`, { mode: 0o600 });

  out('[2/5] platform stand-in: app instances, gorouter (access log) and Cloud Controller + UAA');
  const accessLog = path.join(tmp, 'gorouter-access.log');
  fs.writeFileSync(accessLog, '');
  const cfPassword = crypto.randomBytes(12).toString('base64url');
  const platformEnv = {
    ...baseEnv,
    DATABASE_URL: databaseUrl,
    ROUTER_LOG_FILE: accessLog,
    PLATFORM_APP_NAME: APP,
    CF_USERNAME: 'demo',
    CF_PASSWORD: cfPassword,
  };
  const ready = await unlessInterrupted(startPlatformChild(supervisor, platformEnv, START_TIMEOUT_MS));
  out(`      router ${ready.routerUrl}, Cloud Controller ${ready.apiUrl}`);

  out('[3/5] paasmon collect: polls the Cloud Controller every second, follows the router log');
  const collect = supervisor.start('collect', CLI, ['collect'], {
    essential: true,
    env: {
      ...baseEnv,
      DATABASE_URL: databaseUrl,
      CF_API: ready.apiUrl,
      CF_USERNAME: 'demo',
      CF_PASSWORD: cfPassword,
      CF_APPS: APP,
      POLL_SCHEDULE: '* * * * * *',
      INGEST_SCHEDULE: '* * * * * *',
      ROUTER_LOG_FILE: accessLog,
      ROUTER_LOG_FILE_APP: APP,
      PORT: '0',
      LOG_LEVEL: 'info',
    },
  });
  const metricsPort = Number(
    (await unlessInterrupted(collect.waitForOutput(/"port":(\d+),"schedule"/, START_TIMEOUT_MS)))[1],
  );
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  out(`      ${metricsUrl}`);

  /** @type {number[]} */
  const runIds = [];
  for (const [i, instances] of options.instances.entries()) {
    const label = `${options.impl} ${instances} instance${instances === 1 ? '' : 's'}`;
    out(`[4/5] run ${i + 1} of ${options.instances.length}: ${label}`);
    const scaledAt = new Date();
    await unlessInterrupted(ready.scale(instances));
    // The run starts once collect has seen every new instance running, so its CPU is in the run.
    await unlessInterrupted(
      waitUntil(
        async () => {
          const { rows } = await pool.query(
            `SELECT count(*)::int AS n FROM instance_samples WHERE app_name = $1 AND ts > $2 AND state = 'RUNNING'
        GROUP BY ts ORDER BY ts DESC LIMIT 1`,
            [APP, scaledAt],
          );
          return rows[0]?.n === instances;
        },
        START_TIMEOUT_MS,
        () => `collect to see ${instances} running instance(s); collect's last output:\n${collect.tail()}`,
      ),
    );
    const url = `${ready.routerUrl}/api/board`;
    const runId = await startRun(pool, {
      label,
      appName: APP,
      implementation: options.impl,
      instances,
      parallel: options.parallel,
      coresPerInstance: 1,
      meta: { demo: 'true', url, duration: options.durationText },
    });
    runIds.push(runId);
    const loadgen = supervisor.start(
      `loadgen-${runId}`,
      CLI,
      [
        'loadgen',
        '--url',
        url,
        '--duration',
        options.durationText,
        '--parallel',
        String(options.parallel),
        '--run',
        String(runId),
      ],
      { env: { ...baseEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } },
    );
    const exit = await unlessInterrupted(liveProgress({ pool, runId, out, exited: loadgen.exited, sleep }));
    if (exit.code !== 0)
      throw new Error(
        `paasmon loadgen for run ${runId} failed (${exit.signal ?? `exit code ${exit.code}`}):\n${loadgen.tail()}`,
      );
    await stopRun(pool, runId);
    const counts = await unlessInterrupted(
      waitUntil(
        async () => {
          const [c] = await correlationCounts(pool, runId);
          return c.requests > 0 && c.matched === c.requests ? c : undefined;
        },
        CORRELATION_TIMEOUT_MS,
        () =>
          `the router records of run ${runId} to be ingested and matched; collect's last output:\n${collect.tail()}`,
      ),
    );
    out(`      run ${runId}: ${counts.requests} requests, every one matched with its router record`);
  }

  out('[5/5] paasmon correlate');
  const correlate = supervisor.start('correlate', CLI, ['correlate'], {
    env: { ...baseEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
  });
  const correlated = await unlessInterrupted(correlate.exited);
  if (correlated.code !== 0) throw new Error(`paasmon correlate failed:\n${correlate.tail()}`);
  out(fs.readFileSync(correlate.logFile, 'utf8').trimEnd());

  const table = await comparisonTable(pool, runIds);
  fs.mkdirSync(options.out, { recursive: true });
  fs.writeFileSync(path.join(options.out, 'comparison.txt'), `${table}\n`);
  out(
    `\nComparison of the runs (run_summary; cpu in percent of one core, each instance entitled to one core):\n${table}`,
  );
  out(`\nwritten: ${path.join(options.out, 'comparison.txt')}`);
  out(
    `metrics: ${metricsUrl} served by paasmon collect during the runs` +
      (options.keep ? '' : ' (--keep keeps everything up)'),
  );

  if (!options.keep) return 0;
  await keepRunning({
    out,
    env,
    tmp,
    supervisor,
    metricsPort,
    databaseUrl,
    urlFile,
    routerUrl: ready.routerUrl,
    sleep,
  });
  await new Promise((resolve) =>
    signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve, { once: true }),
  );
  out('\nstopping everything');
  return 0;
}

/**
 * Polls `check` until it returns something truthy.
 * @template T @param {() => Promise<T>} check @param {number} timeoutMs
 * @param {() => string} what described when the time is up (with the output of then)
 * @returns {Promise<NonNullable<T>>}
 */
async function waitUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return /** @type {NonNullable<T>} */ (value);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * A live line while a run goes on: requests recorded so far, their rate over the last second and
 * the app's CPU in the latest poll. Rewritten in place on a terminal, every 5 s otherwise.
 * @param {{ pool: import('pg').Pool, runId: number, out: (line: string) => void,
 *   exited: Promise<{ code: number | null, signal: string | null }>, sleep: (ms: number) => Promise<unknown> }} deps
 */
async function liveProgress({ pool, runId, out, exited, sleep }) {
  const live = process.stdout.isTTY;
  let done;
  exited.then((exit) => {
    done = exit;
  });
  let previous = 0;
  const started = Date.now();
  for (let tick = 1; !done; tick++) {
    await Promise.race([sleep(1000), exited]);
    if (done) break;
    const {
      rows: [r],
    } = await pool.query(
      `SELECT (SELECT count(*)::int FROM loadgen_requests WHERE run_id = $1) AS requests,
      (SELECT sum(cpu_percent) FROM instance_samples
        WHERE app_name = $2 AND ts = (SELECT max(ts) FROM instance_samples WHERE app_name = $2)) AS cpu`,
      [runId, APP],
    );
    const cpu = r.cpu === null ? '-' : Number(r.cpu).toFixed(0);
    const line =
      `      ${((Date.now() - started) / 1000).toFixed(0)} s: ${r.requests} requests recorded, ` +
      `${r.requests - previous} in the last second, app CPU ${cpu} % of a core`;
    previous = r.requests;
    if (live) process.stdout.write(`\r${line}   `);
    else if (tick % 5 === 0) out(line);
  }
  if (live) process.stdout.write('\n');
  return /** @type {{ code: number | null, signal: string | null }} */ (done);
}

/**
 * --keep: everything stays up until Ctrl-C, with Prometheus (the shipped prometheus.yml and rules.yml)
 * scraping collect when it is installed, and the settings Grafana's provisioning reads in a file.
 * @param {{ out: (line: string) => void, env: Record<string, string | undefined>, tmp: string,
 *   supervisor: ReturnType<typeof createSupervisor>, metricsPort: number, databaseUrl: string, urlFile: string,
 *   routerUrl: string, sleep: (ms: number) => Promise<unknown> }} deps
 */
async function keepRunning({ out, env, tmp, supervisor, metricsPort, databaseUrl, urlFile, routerUrl, sleep }) {
  const prometheus = onPath('prometheus', env);
  let prometheusUrl = '';
  if (prometheus) {
    const dir = path.join(tmp, 'prometheus');
    fs.mkdirSync(dir);
    const config = fs.readFileSync(path.join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config.replace('localhost:9469', `127.0.0.1:${metricsPort}`));
    fs.copyFileSync(path.join(PROMETHEUS_DIR, 'rules.yml'), path.join(dir, 'rules.yml'));
    const port = await freePort();
    const args = [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ];
    const child = supervisor.start('prometheus', prometheus, args, { env: { PATH: env.PATH ?? '' } });
    await Promise.race([sleep(2000), child.exited]);
    if (child.process.exitCode === null) {
      prometheusUrl = `http://127.0.0.1:${port}`;
      out(`prometheus: ${prometheusUrl} (prometheus/prometheus.yml and rules.yml, scraping 127.0.0.1:${metricsPort})`);
    } else {
      out(`prometheus did not start:\n${child.tail()}`);
    }
  } else {
    out('prometheus: not installed, skipped (apt-get install prometheus, then run the demo again with --keep)');
  }
  const db = new URL(databaseUrl);
  const grafanaEnv = path.join(tmp, 'grafana.env');
  const settings = {
    PAASMON_PROMETHEUS_URL: prometheusUrl,
    PAASMON_PG_HOST: `${db.hostname}:${db.port || 5432}`,
    PAASMON_PG_USER: decodeURIComponent(db.username),
    PAASMON_PG_PASSWORD: decodeURIComponent(db.password),
    PAASMON_PG_DATABASE: decodeURIComponent(db.pathname.slice(1)),
    PAASMON_PG_SSLMODE: 'disable',
  };
  const lines = Object.entries(settings).map(([k, v]) => `${k}=${v}\n`);
  fs.writeFileSync(grafanaEnv, lines.join(''), { mode: 0o600 });
  out(`grafana: the provisioning settings (README, "Dashboards") are in ${grafanaEnv}: docker run --env-file it`);
  out(`database: DATABASE_URL is in ${urlFile}`);
  out(
    `more load: DATABASE_URL=$(cat ${urlFile}) npx paasmon loadgen --url ${routerUrl}/api/board ` +
      '--duration 60s --parallel 8',
  );
  out('everything stays up until Ctrl-C');
}
