// paasmon import: another load tool's results into a run, request by request, next to the
// load generator's own (the same table), so correlate, report and the dashboards compare them.
import { timeFlag } from './flags.js';
import { runTarget, skippedRatioFlag } from './run-flags.js';
import { checkFormat, checkResultsFile, describeImport, importFile } from '../use-cases/import-results.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';

/**
 * @typedef {import('./run-flags.js').RunFlags & { format?: string, startedAt?: string, maxSkippedRatio?: string }}
 *   ImportFlags
 */

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} ctx
 * @param {ImportFlags} flags @param {string} file
 */
export function importCommand(config, { log, out, err }, flags, file) {
  const target = runTarget(flags);
  const maxRatio = skippedRatioFlag(flags.maxSkippedRatio, config.ingestMaxSkippedRatio);
  const startedAtMs =
    flags.startedAt === undefined ? undefined : Date.parse(timeFlag(flags.startedAt, '--started-at', new Date()));
  checkResultsFile(file);
  checkFormat(flags.format);
  return withMigratedDatabase(config, log, async (pool) => {
    const done = await importFile(pool, { file, format: flags.format, startedAtMs, maxRatio, target, log });
    out(describeImport(done, file));
    if (done.problem) {
      err(`paasmon: import: ${done.problem}`);
      return 1;
    }
    return 0;
  });
}
