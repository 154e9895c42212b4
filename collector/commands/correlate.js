import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { formatTable } from './format.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { numberFlag } from './flags.js';

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ run?: string }} flags
 */
export function correlateCommand(config, { log, out }, flags) {
  const runId = numberFlag(flags.run, '--run', { integer: true, min: 1 });
  return withMigratedDatabase(config, log, async (pool) => {
    const counts = await correlationCounts(pool, runId);
    if (runId !== undefined && counts.length === 0) {
      out(`run ${runId} does not exist`);
      return 1;
    }
    out(
      formatTable(
        ['run', 'label', 'loadgen requests', 'matched', 'loadgen only', 'router only', 'matched %'],
        counts.map((c) => [
          String(c.run_id),
          c.label,
          String(c.requests),
          String(c.matched),
          String(c.loadgen_only),
          String(c.router_only),
          c.requests ? ((100 * c.matched) / c.requests).toFixed(2) : '-',
        ]),
        new Set([0, 2, 3, 4, 5, 6]),
      ),
    );
    return 0;
  });
}
