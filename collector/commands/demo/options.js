// The demo's flags, checked: which implementations, instance counts, load levels and CPU entitlement,
// or with --regression the one setting, the rounds per side and the delay put behind the router.
import path from 'node:path';
import { ConfigError } from '../../../core/errors.js';
import { IMPLEMENTATIONS } from '../../../sandbox/instance-command.js';
import { durationFlag, numberFlag } from '../flags.js';

/**
 * @typedef {object} DemoFlags
 * @property {string} duration
 * @property {string} warmup
 * @property {string} instances
 * @property {string} [impl]
 * @property {string} [parallel]
 * @property {string} [rate]
 * @property {string} coresPerInstance
 * @property {string} [metricsInterval]
 * @property {boolean} [keep]
 * @property {boolean} [regression]
 * @property {string} [rounds]
 * @property {string} [delay]
 * @property {string} out
 */

/**
 * A comma list of whole numbers within [min, max].
 * @param {string} text @param {string} flag @param {string} noun what the numbers are
 * @param {number} min @param {number} max @param {string} example
 */
function countList(text, flag, noun, min, max, example) {
  const items = text.split(',').map((s) => s.trim());
  if (!items.length || items.some((n) => !/^\d+$/.test(n) || Number(n) < min || Number(n) > max)) {
    throw new ConfigError(
      `${flag} must be a comma list of ${noun} from ${min} to ${max} such as ${example}, ` +
        `got ${JSON.stringify(text)}`,
      { variable: flag },
    );
  }
  return [...new Set(items.map(Number))];
}

/** @param {DemoFlags} flags */
export function demoOptions(flags) {
  const durationMs = /** @type {number} */ (durationFlag(flags.duration, '--duration'));
  durationFlag(flags.warmup, '--warmup', { zero: true });
  const instances = countList(flags.instances, '--instances', 'instance counts', 1, 16, '1,2,4');
  const regression = regressionOptions(flags);
  const implText = flags.impl ?? (regression ? 'node' : 'node,java');
  const impls = [...new Set(implText.split(',').map((s) => s.trim()))];
  if (!impls.length || impls.some((impl) => !IMPLEMENTATIONS.includes(impl))) {
    throw new ConfigError(
      `--impl must be a comma list of ${IMPLEMENTATIONS.join(', ')} (the sample apps shipped in sandbox/), ` +
        `got ${JSON.stringify(implText)}`,
      { variable: '--impl' },
    );
  }
  const parallelText = flags.parallel ?? (regression ? '4' : '1,2,4,8,16,32');
  const parallel = countList(parallelText, '--parallel', 'requests in flight', 1, 1000, '1,2,4,8,16,32');
  const rates = flags.rate
    ? countList(flags.rate, '--rate', 'rates in requests per second', 1, 100_000, '50,100,200')
    : [];
  /** @type {Array<{ parallel: number, rate?: undefined } | { rate: number, parallel?: undefined }>} */
  const loads = [...parallel.map((p) => ({ parallel: p })), ...rates.map((r) => ({ rate: r }))];
  if (regression && (impls.length > 1 || instances.length > 1 || parallel.length > 1 || rates.length)) {
    throw new ConfigError(
      '--regression compares rounds of one setting: give --impl, --instances and --parallel one value each ' +
        'and no --rate',
      { variable: '--regression' },
    );
  }
  const coresPerInstance = /** @type {number} */ (
    numberFlag(flags.coresPerInstance ?? '1', '--cores-per-instance', { integer: true, min: 1 })
  );
  return {
    durationMs,
    durationText: flags.duration,
    warmupText: flags.warmup,
    instances,
    impls,
    parallel,
    rates,
    loads,
    coresPerInstance,
    // 0: the stand-in measures at every poll.
    metricsIntervalMs: durationFlag(flags.metricsInterval, '--metrics-interval', { zero: true }) ?? 0,
    keep: Boolean(flags.keep),
    regression,
    out: path.resolve(flags.out),
  };
}

/**
 * --regression's rounds per side and delay, or null without --regression (then --rounds and --delay are wrong).
 * @param {DemoFlags} flags
 */
function regressionOptions(flags) {
  if (!flags.regression) {
    const stray = flags.rounds !== undefined ? '--rounds' : flags.delay !== undefined ? '--delay' : null;
    if (stray) throw new ConfigError(`${stray} goes with --regression`, { variable: stray });
    return null;
  }
  const rounds = /** @type {number} */ (numberFlag(flags.rounds ?? '3', '--rounds', { integer: true, min: 2 }));
  const delayMs = /** @type {number} */ (durationFlag(flags.delay ?? '20ms', '--delay'));
  return { rounds, delayMs };
}

/** @typedef {ReturnType<typeof demoOptions>} DemoOptions */
