// `paasmon report`: the runs chosen by id, label or start time, compared over their steady
// windows (use-cases/compare-runs.js), in one of the formats of report/render.
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { selectRuns } from '../../exporters/postgres/queries/report.js';
import { prunedRuns } from '../../exporters/postgres/retention.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { FORMATS, rendererFor } from '../../report/render/index.js';
import { numberFlag, timeFlag } from './flags.js';
import { compareRuns, comparisonModule } from '../use-cases/compare-runs.js';

/** @param {string} text */
function runList(text) {
  const ids = text.split(',').map((s) => s.trim());
  if (ids.some((id) => !/^[1-9]\d*$/.test(id))) {
    throw new ConfigError(`--runs takes run ids separated by commas (1,2,3), got ${JSON.stringify(text)}`, {
      variable: '--runs',
    });
  }
  return [...new Set(ids.map(Number))];
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {{ runs?: string, label?: string, since?: string, format?: string, out?: string, trim?: string,
 *   scaleBy?: string, recompute?: boolean }} flags
 */
export async function reportCommand(config, { log, out }, flags) {
  const format = flags.format ?? 'table';
  if (!FORMATS.includes(/** @type {any} */ (format))) {
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, {
      variable: '--format',
    });
  }
  if (flags.runs === undefined && flags.label === undefined && flags.since === undefined) {
    throw new ConfigError(
      'choose the runs to compare with --runs 1,2,3, --label L or --since T (see `paasmon run list`)',
      { variable: '--runs' },
    );
  }
  const trim = numberFlag(flags.trim, '--trim') ?? DEFAULT_TRIM;
  if (trim >= 0.5)
    throw new ConfigError(`--trim is the fraction dropped at EACH end of a run and must be below 0.5, got ${trim}`, {
      variable: '--trim',
    });
  const scaleBy = flags.scaleBy ?? 'auto';
  if (!['auto', 'parallel', 'instances'].includes(scaleBy)) {
    throw new ConfigError(`--scale-by must be auto, parallel or instances, got ${JSON.stringify(scaleBy)}`, {
      variable: '--scale-by',
    });
  }
  const selection = {
    runs: flags.runs === undefined ? undefined : runList(flags.runs),
    label: flags.label,
    since: flags.since === undefined ? undefined : timeFlag(flags.since, '--since', new Date()),
  };
  // Before any query: html fails here when its optional dependency (ECharts) is not installed.
  const render = await rendererFor(/** @type {any} */ (format));
  // Loaded while the database connects and answers; a failure to load is met again in compareRuns.
  comparisonModule().catch(() => {});
  return withMigratedDatabase(config, log, async (pool) => {
    const { ids, missing } = await selectRuns(pool, selection);
    if (missing.length)
      throw new ConfigError(`no such run: ${missing.join(', ')} (see \`paasmon run list\`)`, { variable: '--runs' });
    if (ids.length === 0)
      throw new ConfigError('no run matches --label/--since (see `paasmon run list`)', { variable: '--label' });
    const comparison = await compareRuns(pool, ids, {
      trim,
      scaleBy: /** @type {any} */ (scaleBy),
      recompute: flags.recompute === true,
      log,
    });
    const text = render(comparison);
    // Runs whose raw rows retention dropped (paasmon prune): their figures are the stored ones.
    const notes = (await prunedRuns(pool, ids)).map(
      (p) => `run ${p.runId}: raw rows pruned on ${p.prunedAt.toISOString().slice(0, 10)}; percentiles as stored`,
    );
    if (flags.out) {
      fs.writeFileSync(flags.out, text);
      out(`report of ${ids.length} run${ids.length === 1 ? '' : 's'} written to ${flags.out} (${format})`);
      for (const note of notes) out(note);
    } else {
      out(text.replace(/\n$/, ''));
      // Below a table, a line of text; inside json, csv or html it would break the format: on stderr.
      for (const note of notes)
        (format === 'table' || format === 'md' ? out : (/** @type {string} */ l) => log.warn(l))(note);
    }
    return 0;
  });
}
