// `paasmon demo --regression`: the regression gate shown on this machine. Rounds of one setting, the
// baseline (the sample app as shipped) and the candidate (the app adding a known delay to each answer,
// behind the router) interleaved, the app restarted before each round, then `paasmon compare` on them:
// its table printed, its md and json written beside the demo's other outputs, its exit code told.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newSeed } from '../../../report/compare/random.js';
import { LAYER_NAMES, changeText } from '../../../report/compare/words.js';
import { oneRun, restart, runLabel } from './runs.js';

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));
/** compare's exit codes with a verdict: unchanged or improved, regressed, inconclusive, not comparable. */
const VERDICT_CODES = [0, 3, 4, 5];

/** @typedef {{ baseline: number[], candidate: number[] }} RoundIds */

/**
 * Baseline, candidate, baseline, ...: a drift of the machine over the rounds falls on both sides alike.
 * @param {import('./runs.js').RunContext & { regression: { rounds: number, delayMs: number } }} ctx
 * @returns {Promise<RoundIds>} the run ids of each side
 */
export async function runRounds(ctx) {
  const { options, out, regression } = ctx;
  const [impl] = ctx.impls;
  const [instances] = options.instances;
  const [load] = options.loads;
  const setting = runLabel(impl, instances, load, true);
  /** @type {RoundIds} */
  const ids = { baseline: [], candidate: [] };
  for (let round = 1; round <= regression.rounds; round++) {
    for (const side of /** @type {const} */ (['baseline', 'candidate'])) {
      const delayMs = side === 'candidate' ? regression.delayMs : 0;
      const label = side === 'baseline' ? `${setting}, baseline` : `${setting}, +${delayMs} ms behind the router`;
      out(`[4/5] round ${round} of ${regression.rounds}, ${side}: ${label}`);
      // A fresh start before each round, as a deployment would: each round its own process and warm-up.
      await restart(ctx, impl, instances, delayMs);
      const meta = { regression: side, delay_ms: String(delayMs) };
      ids[side].push(await oneRun(ctx, { impl, instances, load, label, warmup: options.warmupText, meta }));
    }
  }
  return ids;
}

/**
 * `paasmon compare` on the rounds, as a child (one seed for every format, so that they agree): its
 * table printed, md and json written to `outDir`.
 * @param {import('./runs.js').RunContext & { ids: RoundIds, delayMs: number }} ctx
 * @returns {Promise<string>} the closing sentence: what compare found against what was put in
 */
export async function compareRounds({ ids, delayMs, options, out, supervisor, env, unlessInterrupted }) {
  const sides = ['--baseline', ids.baseline.join(','), '--candidate', ids.candidate.join(',')];
  out(`[5/5] paasmon compare ${sides.join(' ')}\n`);
  fs.mkdirSync(options.out, { recursive: true });
  const files = { md: path.join(options.out, 'compare.md'), json: path.join(options.out, 'compare.json') };
  const seed = String(newSeed());
  /** @param {string} format @param {string[]} [to] */
  const compare = async (format, to = []) => {
    const args = ['compare', ...sides, '--format', format, '--seed', seed, ...to];
    const child = supervisor.start(`compare-${format}`, CLI, args, { env });
    const { code } = await unlessInterrupted(child.exited);
    if (code === null || !VERDICT_CODES.includes(code)) throw new Error(`paasmon compare failed:\n${child.tail()}`);
    return { code, output: fs.readFileSync(child.logFile, 'utf8').trimEnd() };
  };
  const table = await compare('table');
  out(table.output);
  await compare('md', ['--out', files.md]);
  await compare('json', ['--out', files.json]);
  out(`\nwritten: ${files.md} (a pull-request comment), ${files.json}`);
  return closingSentence(JSON.parse(fs.readFileSync(files.json, 'utf8')), table.code, delayMs);
}

/**
 * What compare found, against what was put in.
 * @param {Record<string, any>} result compare's JSON @param {number} code its exit code @param {number} delayMs
 */
export function closingSentence(result, code, delayMs) {
  const exit = `\`paasmon compare\` exited ${code}, as it would in a pipeline`;
  if (result.verdict === 'not_comparable')
    return `compare's verdict: not comparable (${exit}): ${result.comparable.reasons.join('; ')}.`;
  if (result.verdict !== 'regressed') {
    return (
      `compare's verdict: ${result.verdict} (${exit}): the ${delayMs} ms added behind the router did not stand ` +
      "out of this machine's noise; more --rounds or a longer --duration would settle it."
    );
  }
  const regressed = result.figures
    .filter((/** @type {any} */ f) => f.gated && f.verdict === 'regressed')
    .map((/** @type {any} */ f) => `${f.label} ${changeText(f)}`);
  const layer = result.layer ? `${LAYER_NAMES[result.layer]} (${result.layer})` : 'none named';
  const where = result.layer === 'behind_router' ? 'where' : 'though';
  return (
    `compare's verdict: regressed (${exit}): ${regressed.join(', ')}; the layer that moved: ${layer}, ` +
    `${where} the candidate's ${delayMs} ms delay was put behind the router.`
  );
}
