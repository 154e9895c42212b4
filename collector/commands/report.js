// `paasmon report`: the runs chosen by id, label or start time, compared over their steady
// windows, in one of the formats of report/render. Also the entry point for other commands (the
// demo): compareRuns(pool, runIds, options) and renderReport(comparison, format).
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { loadReportData, selectRuns } from '../../exporters/postgres/queries/report.js';
import { prunedRuns } from '../../exporters/postgres/schema/retention.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { FORMATS, renderComparison, rendererFor } from '../../report/render/index.js';
import { numberFlag, timeFlag } from './flags.js';

export { DEFAULT_TRIM };

/** The comparison and its numerics (the scalability fit's): imported while the database answers. */
const comparisonModule = () => import('../../report/comparison.js');

/**
 * The comparison of these runs (each must exist), ready for renderReport.
 * @param {import('pg').Pool} pool @param {number[]} runIds
 * @param {{ trim?: number, scaleBy?: 'auto' | 'parallel' | 'instances', recompute?: boolean,
 *   log?: import('pino').Logger }} [options]
 *   trim: fraction of each run dropped at each end (0.1); scaleBy: the load of the USL fit (auto);
 *   recompute: compute every run's figures now, not read the stored ones (but a pruned run's)
 * @returns {Promise<import('../../report/comparison.js').Comparison>}
 */
export async function compareRuns(pool, runIds, options = {}) {
  const trim = options.trim ?? DEFAULT_TRIM;
  const data = await loadReportData(pool, runIds, { trim, recompute: options.recompute });
  if (data.stored.length) options.log?.debug({ runs: data.stored }, 'stored figures of runs read back');
  const { buildComparison } = await comparisonModule();
  return buildComparison(data, { trim, scaleBy: options.scaleBy });
}

/**
 * The comparison as text in one format (an html page, a terminal table, ...).
 * @param {import('../../report/comparison.js').Comparison} comparison
 * @param {'table' | 'md' | 'csv' | 'json' | 'html'} format @returns {Promise<string>}
 */
export const renderReport = (comparison, format) => renderComparison(comparison, format);

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
