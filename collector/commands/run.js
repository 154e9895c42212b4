import { shownValue } from '../../core/secrets.js';
import { keyValueFlags, numberFlag } from './flags.js';
import { formatTable } from './format.js';
import { listRuns, startRun, stopRun } from '../../exporters/postgres/queries/runs.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepRunFigures } from '../run-figures.js';

/**
 * @typedef {object} RunStartFlags
 * @property {string} label
 * @property {string} app
 * @property {string} [instances]
 * @property {string} [parallel]
 * @property {string} [round]
 * @property {string} [impl]
 * @property {string} [coresPerInstance]
 * @property {string[]} [meta]
 */

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {RunStartFlags} flags
 */
export function runStartCommand(config, { log, out }, flags) {
  const spec = {
    label: flags.label,
    appName: flags.app,
    implementation: flags.impl,
    instances: numberFlag(flags.instances, '--instances', { integer: true, min: 1 }),
    parallel: numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }),
    round: numberFlag(flags.round, '--round', { integer: true }),
    coresPerInstance: numberFlag(flags.coresPerInstance, '--cores-per-instance', { min: 0.001 }),
    meta: keyValueFlags(flags.meta ?? [], '--meta'),
  };
  return withMigratedDatabase(config, log, async (pool) => {
    out(String(await startRun(pool, spec)));
    return 0;
  });
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} ctx
 * @param {object} _flags @param {string} id
 */
export function runStopCommand(config, { log, out, err }, _flags, id) {
  const runId = /** @type {number} */ (numberFlag(id, 'ID', { integer: true, min: 1 }));
  return withMigratedDatabase(config, log, async (pool) => {
    if (!(await stopRun(pool, runId))) {
      err(`paasmon: run ${runId} does not exist or has already ended (paasmon run list shows the runs)`);
      return 1;
    }
    await keepRunFigures(pool, runId, log);
    out(`run ${runId} stopped`);
    return 0;
  });
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 */
export function runListCommand(config, { log, out }) {
  return withMigratedDatabase(config, log, async (pool) => {
    const runs = await listRuns(pool);
    if (runs.length === 0) {
      out('no test runs yet: paasmon run start --label L --app A, or paasmon loadgen --url U --app A ... creates one');
      return 0;
    }
    const iso = (/** @type {Date | null} */ d) => (d ? d.toISOString().replace('.000Z', 'Z') : '-');
    out(
      formatTable(
        [
          'id',
          'label',
          'app',
          'impl',
          'instances',
          'parallel',
          'round',
          'cores/instance',
          'started (UTC)',
          'ended (UTC)',
          'requests',
          'meta',
        ],
        runs.map((r) => [
          String(r.id),
          r.label,
          r.app_name ?? '-',
          r.implementation ?? '-',
          String(r.instances ?? '-'),
          String(r.parallel ?? '-'),
          String(r.round ?? '-'),
          String(r.cores_per_instance ?? '-'),
          iso(r.started_at),
          iso(r.ended_at),
          String(r.requests),
          Object.entries(r.meta ?? {})
            .map(([k, v]) => `${k}=${shownValue(k, String(v))}`)
            .join(' ') || '-',
        ]),
        new Set([0, 4, 5, 6, 7, 10]),
      ),
    );
    return 0;
  });
}
