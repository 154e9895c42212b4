// `paasmon prune [--before T] [--dry-run]`: drops the day partitions of the raw rows older than
// the limit (RETENTION, or --before), after storing the report figures of the runs in them.
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { preparePartitions } from '../../exporters/postgres/schema/partitions.js';
import { prune, retentionLimit } from '../../exporters/postgres/schema/retention.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { timeFlag } from './flags.js';

/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ before?: string, dryRun?: boolean }} flags
 */
export async function pruneCommand(config, { log, out }, flags) {
  const now = new Date();
  let before;
  if (flags.before !== undefined) before = new Date(timeFlag(flags.before, '--before', now));
  else if (config.retentionMs !== undefined) before = retentionLimit(config.retentionMs, now);
  else
    throw new ConfigError('nothing to prune: set RETENTION (e.g. 180d) or give --before T', {
      variable: 'RETENTION',
    });
  return withMigratedDatabase(config, log, async (pool) => {
    // Rows of old days that reached the default partition go to partitions of their own first.
    await preparePartitions(pool);
    const result = await prune(pool, { before, trim: DEFAULT_TRIM, dryRun: flags.dryRun === true, log });
    const verb = flags.dryRun ? 'would drop' : 'dropped';
    const days = new Set(result.partitions.map((p) => p.from.toISOString().slice(0, 10)));
    out(
      `${verb} ${result.partitions.length} partitions (${days.size} days before ` +
        `${result.limit.toISOString()}, ${megabytes(result.bytes)}); ` +
        `${result.runIds.length} runs ${flags.dryRun ? 'would keep' : 'keep'} only their stored figures`,
    );
    for (const p of result.partitions) out(`  ${p.partition}  ${megabytes(p.bytes)}`);
    return 0;
  });
}
