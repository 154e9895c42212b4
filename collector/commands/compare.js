// `paasmon compare`: a regression gate between baseline and candidate runs (each run one round of
// its side), with the verdict as an exit code a CI step can branch on: 0 unchanged or improved,
// 3 regressed, 4 inconclusive, 5 not comparable (1 and 2 as for every command).
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { loadSides } from '../../exporters/postgres/queries/compare.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { COMPARE_FORMATS, compareRenderer } from '../../report/compare/render.js';
import { newSeed } from '../../report/compare/random.js';
import { DEFAULT_GATE, FIGURES } from '../../report/compare/figures.js';
import { numberFlag, sideSelection } from './flags.js';

export { sideSelection };

export const EXIT_CODES = /** @type {const} */ ({
  unchanged: 0,
  improved: 0,
  regressed: 3,
  inconclusive: 4,
  not_comparable: 5,
});

/** Threshold flags: percent of the baseline (errors: percentage points). */
const THRESHOLD_FLAGS = /** @type {const} */ ([
  ['latencyThreshold', 'latency', '--latency-threshold'],
  ['throughputThreshold', 'throughput', '--throughput-threshold'],
  ['errorsThreshold', 'errors', '--errors-threshold'],
  ['cpuThreshold', 'cpu', '--cpu-threshold'],
  ['memoryThreshold', 'memory', '--memory-threshold'],
]);

/**
 * @param {Record<string, string | boolean | undefined>} flags
 */
function compareOptions(flags) {
  const format = /** @type {string} */ (flags.format ?? 'table');
  if (!COMPARE_FORMATS.includes(format))
    throw new ConfigError(`--format must be one of ${COMPARE_FORMATS.join(', ')}, got ${JSON.stringify(format)}`, {
      variable: '--format',
    });
  const trim = numberFlag(/** @type {string | undefined} */ (flags.trim), '--trim') ?? DEFAULT_TRIM;
  if (trim >= 0.5)
    throw new ConfigError(`--trim is the fraction dropped at EACH end of a run and must be below 0.5, got ${trim}`, {
      variable: '--trim',
    });
  const gate =
    flags.gate === undefined
      ? DEFAULT_GATE
      : String(flags.gate)
          .split(',')
          .map((s) => s.trim());
  const unknown = gate.filter((name) => !FIGURES.some((f) => f.name === name));
  if (unknown.length || gate.length === 0)
    throw new ConfigError(
      `--gate takes figures among ${FIGURES.map((f) => f.name).join(', ')}; unknown: ${unknown.join(', ') || '(none)'}`,
      { variable: '--gate' },
    );
  /** @type {Record<string, number>} */
  const thresholds = {};
  for (const [key, kind, flag] of THRESHOLD_FLAGS) {
    const percent = numberFlag(/** @type {string | undefined} */ (flags[key]), flag);
    if (percent !== undefined) thresholds[kind] = percent / 100;
  }
  const seed = numberFlag(/** @type {string | undefined} */ (flags.seed), '--seed', { integer: true, min: 1 });
  const mix = numberFlag(/** @type {string | undefined} */ (flags.mixTolerance), '--mix-tolerance');
  return {
    format,
    trim,
    gate,
    thresholds,
    seed: seed ?? newSeed(),
    force: flags.force === true,
    mixTolerance: mix === undefined ? undefined : mix / 100,
  };
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {Record<string, string | boolean | undefined>} flags
 */
export async function compareCommand(config, { log, out }, flags) {
  const options = compareOptions(flags);
  const now = new Date();
  const selections = {
    baseline: sideSelection(String(flags.baseline ?? ''), '--baseline', now),
    candidate: sideSelection(String(flags.candidate ?? ''), '--candidate', now),
  };
  return withMigratedDatabase(config, log, async (pool) => {
    const data = await loadSides(pool, selections, { trim: options.trim });
    const { buildCompare } = await import('../../report/compare/index.js');
    const result = buildCompare(data, options);
    const text = compareRenderer(options.format)(result);
    if (flags.out) {
      fs.writeFileSync(String(flags.out), text);
      out(`${result.headline} (${options.format} written to ${flags.out})`);
    } else out(text.replace(/\n$/, ''));
    return EXIT_CODES[result.verdict];
  });
}
