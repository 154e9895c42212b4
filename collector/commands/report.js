// `paasmon report`: the runs chosen by id, label or start time, compared over their steady
// windows (use-cases/compare-runs.js), in one of the formats of report/render.
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { loadSides } from '../../exporters/postgres/queries/compare.js';
import { selectRuns } from '../../exporters/postgres/queries/report.js';
import { prunedRuns } from '../../exporters/postgres/schema/retention.js';
import { newSeed } from '../../report/compare/random.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { FORMATS, rendererFor } from '../../report/render/index.js';
import { numberFlag, sideSelection, timeFlag } from './flags.js';
import { compareRuns, comparisonModule } from '../use-cases/compare-runs.js';

/** `paasmon compare`'s statistics, for --baseline and --candidate. */
const compareModule = () => import('../../report/compare/index.js');

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
 *   scaleBy?: string, recompute?: boolean, baseline?: string, candidate?: string, seed?: string }} flags
 *   baseline, candidate (html): the comparison of `paasmon compare` as a section of the page
 */
export async function reportCommand(config, { log, out }, flags) {
  const format = flags.format ?? 'table';
  if (!FORMATS.includes(/** @type {any} */ (format))) {
    throw new ConfigError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, {
      variable: '--format',
    });
  }
  const gate = gateFlags(flags, format);
  if (flags.runs === undefined && flags.label === undefined && flags.since === undefined && !gate) {
    throw new ConfigError(
      'choose the runs to compare with --runs 1,2,3, --label L, --since T or --baseline and --candidate ' +
        '(see `paasmon run list`)',
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
    // compare's defaults (gate, thresholds), the report's window.
    const compared =
      gate && (await compareModule()).buildCompare(await loadSides(pool, gate.selections, { trim }), { trim, ...gate });
    // Without --runs, --label or --since: the runs of both sides.
    const sides = compared ? [...compared.baseline.runs, ...compared.candidate.runs].sort((a, b) => a - b) : [];
    const chosen = Object.values(selection).some((v) => v !== undefined);
    const { ids, missing } = chosen ? await selectRuns(pool, selection) : { ids: sides, missing: [] };
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
    const text = render(comparison, compared ? { compare: compared } : undefined);
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

/**
 * The comparison asked for with --baseline and --candidate (html only), or null.
 * @param {{ baseline?: string, candidate?: string, seed?: string }} flags @param {string} format
 */
function gateFlags(flags, format) {
  if (flags.baseline === undefined && flags.candidate === undefined) {
    if (flags.seed !== undefined)
      throw new ConfigError('--seed is the seed of the comparison of --baseline and --candidate', {
        variable: '--seed',
      });
    return null;
  }
  if (flags.baseline === undefined || flags.candidate === undefined)
    throw new ConfigError('--baseline and --candidate go together: the comparison needs both sides', {
      variable: flags.baseline === undefined ? '--baseline' : '--candidate',
    });
  if (format !== 'html')
    throw new ConfigError(
      `--baseline and --candidate add the comparison to --format html; for ${format}, run \`paasmon compare\``,
      { variable: '--format' },
    );
  const now = new Date();
  return {
    selections: {
      baseline: sideSelection(flags.baseline, '--baseline', now),
      candidate: sideSelection(flags.candidate, '--candidate', now),
    },
    seed: numberFlag(flags.seed, '--seed', { integer: true, min: 1 }) ?? newSeed(),
  };
}
