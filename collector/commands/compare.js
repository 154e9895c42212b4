// `paasmon compare`: a regression gate between baseline and candidate runs (each run one round of
// its side), with the verdict as an exit code a CI step can branch on: 0 unchanged or improved,
// 3 regressed, 4 inconclusive, 5 not comparable (1 and 2 as for every command).
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { loadCompareData } from '../../exporters/postgres/queries/compare.js';
import { selectRuns } from '../../exporters/postgres/queries/report.js';
import { DEFAULT_TRIM } from '../../report/default-trim.js';
import { COMPARE_FORMATS, compareRenderer } from '../../report/compare/render.js';
import { newSeed } from '../../report/compare/random.js';
import { DEFAULT_GATE, FIGURES } from '../../report/compare/figures.js';
import { numberFlag, timeFlag } from './flags.js';

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
 * A side's runs: ids (12,13,14), `since:T` (every run started since T), `label:L` or any other
 * text (every run with that label).
 * @param {string} text @param {string} flag @param {Date} now
 * @returns {import('../../exporters/postgres/queries/compare.js').Selection}
 */
export function sideSelection(text, flag, now) {
  const value = text.trim();
  if (value === '') throw new ConfigError(`${flag} needs run ids (12,13,14), a label or since:T`, { variable: flag });
  if (/^[\d,\s]+$/.test(value)) {
    const ids = value.split(',').map((s) => s.trim());
    if (ids.some((id) => !/^[1-9]\d*$/.test(id)))
      throw new ConfigError(`${flag} takes run ids separated by commas (12,13,14), got ${JSON.stringify(text)}`, {
        variable: flag,
      });
    return { runs: [...new Set(ids.map(Number))] };
  }
  if (value.startsWith('since:')) return { since: timeFlag(value.slice(6), flag, now) };
  return { label: value.startsWith('label:') ? value.slice(6) : value };
}

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
    /** @type {Record<'baseline' | 'candidate', number[]>} */
    const ids = { baseline: [], candidate: [] };
    for (const side of /** @type {const} */ (['baseline', 'candidate'])) {
      const chosen = await selectRuns(pool, selections[side]);
      if (chosen.missing.length)
        throw new ConfigError(`--${side}: no such run: ${chosen.missing.join(', ')} (see \`paasmon run list\`)`, {
          variable: `--${side}`,
        });
      if (chosen.ids.length === 0)
        throw new ConfigError(`--${side} selects no run (see \`paasmon run list\`)`, { variable: `--${side}` });
      ids[side] = chosen.ids;
    }
    const both = ids.baseline.filter((id) => ids.candidate.includes(id));
    if (both.length)
      throw new ConfigError(`run ${both.join(', ')} is on both sides; a run is a round of one side only`, {
        variable: '--candidate',
      });
    const data = await loadCompareData(pool, [...ids.baseline, ...ids.candidate], { trim: options.trim });
    const pick = (/** @type {number[]} */ list) => list.map((id) => /** @type {any} */ (data.get(id)));
    const { buildCompare } = await import('../../report/compare/index.js');
    const result = buildCompare({ baseline: pick(ids.baseline), candidate: pick(ids.candidate) }, options);
    const text = compareRenderer(options.format)(result);
    if (flags.out) {
      fs.writeFileSync(String(flags.out), text);
      out(`${result.headline} (${options.format} written to ${flags.out})`);
    } else out(text.replace(/\n$/, ''));
    return EXIT_CODES[result.verdict];
  });
}
