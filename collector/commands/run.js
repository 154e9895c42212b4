import { ConfigError } from '../errors.js';
import { formatTable } from '../format.js';
import { listRuns, startRun, stopRun } from '../runs.js';
import { withMigratedDatabase } from '../../exporters/database.js';

/**
 * @param {string | undefined} value @param {string} flag @param {{ min?: number, integer?: boolean }} [options]
 * @returns {number | undefined}
 */
export function numberFlag(value, flag, options = {}) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (options.integer && !Number.isInteger(n)) || n < (options.min ?? 0)) {
    throw new ConfigError(`${flag} must be a ${options.integer ? 'whole ' : ''}number${options.min ? ` of at least ${options.min}` : ''}, got ${JSON.stringify(value)}`, { variable: flag });
  }
  return n;
}

/** @param {string[]} pairs k=v */
function meta(pairs) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--meta takes key=value, got ${JSON.stringify(pair)}`, { variable: '--meta' });
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * @param {import('../config.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ label: string, app: string, instances?: string, parallel?: string, round?: string, impl?: string, coresPerInstance?: string, meta?: string[] }} flags
 */
export function runStartCommand(config, { log, out }, flags) {
  const spec = {
    label: flags.label, appName: flags.app, implementation: flags.impl,
    instances: numberFlag(flags.instances, '--instances', { integer: true, min: 1 }),
    parallel: numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }),
    round: numberFlag(flags.round, '--round', { integer: true }),
    coresPerInstance: numberFlag(flags.coresPerInstance, '--cores-per-instance', { min: 0.001 }),
    meta: meta(flags.meta ?? []),
  };
  return withMigratedDatabase(config, log, async (pool) => {
    out(String(await startRun(pool, spec)));
    return 0;
  });
}

/** @param {import('../config.js').Config} config @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx @param {string} id */
export function runStopCommand(config, { log, out }, id) {
  const runId = /** @type {number} */ (numberFlag(id, 'ID', { integer: true, min: 1 }));
  return withMigratedDatabase(config, log, async (pool) => {
    if (!(await stopRun(pool, runId))) {
      out(`run ${runId} does not exist or has already ended`);
      return 1;
    }
    out(`run ${runId} stopped`);
    return 0;
  });
}

/** @param {import('../config.js').Config} config @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx */
export function runListCommand(config, { log, out }) {
  return withMigratedDatabase(config, log, async (pool) => {
    const runs = await listRuns(pool);
    const iso = (/** @type {Date | null} */ d) => (d ? d.toISOString().replace('.000Z', 'Z') : '-');
    out(formatTable(['id', 'label', 'app', 'impl', 'instances', 'parallel', 'round', 'cores/instance', 'started (UTC)', 'ended (UTC)', 'requests', 'meta'],
      runs.map((r) => [String(r.id), r.label, r.app_name ?? '-', r.implementation ?? '-', String(r.instances ?? '-'), String(r.parallel ?? '-'),
        String(r.round ?? '-'), String(r.cores_per_instance ?? '-'), iso(r.started_at), iso(r.ended_at), String(r.requests),
        Object.entries(r.meta ?? {}).map(([k, v]) => `${k}=${v}`).join(' ') || '-']),
      new Set([0, 4, 5, 6, 7, 10])));
    return 0;
  });
}
