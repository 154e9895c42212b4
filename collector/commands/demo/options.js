// The demo's flags, checked: which implementations, instance counts, load levels and CPU entitlement.
import path from 'node:path';
import { ConfigError } from '../../../core/errors.js';
import { IMPLEMENTATIONS } from '../../../sandbox/instance-command.js';
import { durationFlag, numberFlag } from '../flags.js';

/**
 * @typedef {object} DemoFlags
 * @property {string} duration
 * @property {string} warmup
 * @property {string} instances
 * @property {string} impl
 * @property {string} parallel
 * @property {string} [rate]
 * @property {string} coresPerInstance
 * @property {string} [metricsInterval]
 * @property {boolean} [keep]
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
  const impls = [...new Set(flags.impl.split(',').map((s) => s.trim()))];
  if (!impls.length || impls.some((impl) => !IMPLEMENTATIONS.includes(impl))) {
    throw new ConfigError(
      `--impl must be a comma list of ${IMPLEMENTATIONS.join(', ')} (the sample apps shipped in sandbox/), ` +
        `got ${JSON.stringify(flags.impl)}`,
      { variable: '--impl' },
    );
  }
  const parallel = countList(flags.parallel, '--parallel', 'requests in flight', 1, 1000, '1,2,4,8,16,32');
  const rates = flags.rate
    ? countList(flags.rate, '--rate', 'rates in requests per second', 1, 100_000, '50,100,200')
    : [];
  /** @type {Array<{ parallel: number, rate?: undefined } | { rate: number, parallel?: undefined }>} */
  const loads = [...parallel.map((p) => ({ parallel: p })), ...rates.map((r) => ({ rate: r }))];
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
    out: path.resolve(flags.out),
  };
}

/** @typedef {ReturnType<typeof demoOptions>} DemoOptions */
