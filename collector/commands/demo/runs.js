// The demo's runs: for each implementation and instance count the app is restarted, then one
// `paasmon loadgen` run per load level, each labelled and tagged with its implementation, and
// waited for until every request is matched with its router record.
import { fileURLToPath } from 'node:url';
import { correlationCounts } from '../../../exporters/postgres/queries/correlation.js';
import { startRun, stopRun } from '../../../exporters/postgres/queries/runs.js';

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));
export const START_TIMEOUT_MS = 60_000;
/** The warm-up of each run after the first of an instance count: the new load generator's connections. */
const NEXT_RUN_WARMUP = '1s';
/** How long the router records of a finished run may take to be ingested and matched. */
const CORRELATION_TIMEOUT_MS = 30_000;

/**
 * @typedef {object} RunContext
 * @property {import('pg').Pool} pool
 * @property {string} app
 * @property {(line: string) => void} out
 * @property {import('./options.js').DemoOptions} options
 * @property {string[]} impls the implementations that run here
 * @property {{ routerUrl: string, pinning?: string | null,
 *   scale: (n: number, impl: string, delayMs?: number) => Promise<Array<{ port: number }>> }} platform
 * @property {import('../../../sandbox/supervisor.js').Child} collect
 * @property {ReturnType<typeof import('../../../sandbox/supervisor.js').createSupervisor>} supervisor
 * @property {Record<string, string>} env of loadgen
 * @property {<T>(promise: Promise<T>) => Promise<T>} unlessInterrupted
 * @property {(ms: number) => Promise<unknown>} sleep
 */

/**
 * Polls `check` until it returns something truthy.
 * @template T @param {() => Promise<T>} check @param {number} timeoutMs
 * @param {() => string} what described when the time is up (with the output of then)
 * @returns {Promise<NonNullable<T>>}
 */
export async function waitUntil(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return /** @type {NonNullable<T>} */ (value);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * @param {string} impl @param {number} instances
 * @param {{ parallel?: number, rate?: number }} load @param {boolean} named whether the load is in the label
 */
export function runLabel(impl, instances, load, named) {
  const base = `${impl} ${instances} instance${instances === 1 ? '' : 's'}`;
  if (load.rate !== undefined) return `${base}, ${load.rate} req/s offered`;
  return named ? `${base}, ${load.parallel} in flight` : base;
}

/** Every run, in order. @param {RunContext} ctx @returns {Promise<number[]>} run ids */
export async function runSweep(ctx) {
  const { options, impls, out } = ctx;
  const total = impls.length * options.instances.length * options.loads.length;
  /** @type {number[]} */
  const runIds = [];
  for (const impl of impls) {
    for (const instances of options.instances) {
      await restart(ctx, impl, instances);
      for (const [i, load] of options.loads.entries()) {
        const label = runLabel(impl, instances, load, options.loads.length > 1);
        out(`[4/5] run ${runIds.length + 1} of ${total}: ${label}`);
        // A new instance's JIT, caches and pools warm up before its first run, through the router.
        const warmup = i === 0 ? options.warmupText : NEXT_RUN_WARMUP;
        runIds.push(await oneRun(ctx, { impl, instances, load, label, warmup }));
      }
    }
  }
  return runIds;
}

/**
 * Restarts the app with `instances` instances of `impl` and waits until collect has seen every new
 * one running, so that its CPU is in the next run.
 * @param {RunContext} ctx @param {string} impl @param {number} instances
 * @param {number} [delayMs] added by the app to each answer
 */
export async function restart(ctx, impl, instances, delayMs = 0) {
  const scaledAt = new Date();
  await ctx.unlessInterrupted(ctx.platform.scale(instances, impl, delayMs));
  await ctx.unlessInterrupted(
    waitUntil(
      async () => {
        const { rows } = await ctx.pool.query(
          `SELECT count(*)::int AS n FROM instance_samples WHERE app_name = $1 AND ts > $2 AND state = 'RUNNING'
        GROUP BY ts ORDER BY ts DESC LIMIT 1`,
          [ctx.app, scaledAt],
        );
        return rows[0]?.n === instances;
      },
      START_TIMEOUT_MS,
      () => `collect to see ${instances} running instance(s); collect's last output:\n${ctx.collect.tail()}`,
    ),
  );
}

/**
 * One loadgen run, waited for until each of its requests is matched with its router record.
 * @param {RunContext} ctx
 * @param {{ impl: string, instances: number, load: { parallel?: number, rate?: number }, label: string,
 *   warmup: string, meta?: Record<string, string> }} run
 * @returns {Promise<number>} its id
 */
export async function oneRun(ctx, { impl, instances, load, label, warmup, meta = {} }) {
  const { pool, options, unlessInterrupted } = ctx;
  const url = `${ctx.platform.routerUrl}/api/board`;
  const runId = await startRun(pool, {
    label,
    appName: ctx.app,
    implementation: impl,
    instances,
    parallel: load.parallel,
    coresPerInstance: options.coresPerInstance,
    meta: {
      demo: 'true',
      url,
      duration: options.durationText,
      warmup,
      ...(load.rate ? { rate: String(load.rate) } : {}),
      ...meta,
    },
  });
  // Closed model (requests in flight) or open model (a rate on a fixed schedule).
  const model = load.rate === undefined ? ['--parallel', String(load.parallel)] : ['--rate', String(load.rate)];
  const args = ['loadgen', '--url', url, '--duration', options.durationText, '--warmup', warmup, ...model];
  const loadgen = ctx.supervisor.start(`loadgen-${runId}`, CLI, [...args, '--run', String(runId)], { env: ctx.env });
  const exit = await unlessInterrupted(liveProgress({ ...ctx, runId, exited: loadgen.exited }));
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
        `the router records of run ${runId} to be ingested and matched; collect's last output:\n${ctx.collect.tail()}`,
    ),
  );
  ctx.out(`      run ${runId}: ${counts.requests} requests, every one matched with its router record`);
  return runId;
}

/**
 * A live line while a run goes on: requests recorded so far, their rate over the last second and
 * the app's CPU in the latest poll. Rewritten in place on a terminal, every 5 s otherwise.
 * @param {RunContext & { runId: number, exited: Promise<{ code: number | null, signal: string | null }> }} deps
 */
async function liveProgress({ pool, app, runId, out, exited, sleep }) {
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
      [runId, app],
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
