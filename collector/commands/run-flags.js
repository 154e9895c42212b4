// The flags of the commands that write a tool's results into a run (import, run exec): which run,
// and how many unreadable lines are too many.
import { ConfigError } from '../../core/errors.js';
import { keyValueFlags, numberFlag } from './flags.js';

/**
 * @typedef {object} RunFlags
 * @property {string} [run]
 * @property {string} [app]
 * @property {string} [label]
 * @property {string} [instances]
 * @property {string} [parallel]
 * @property {string} [impl]
 * @property {string[]} [meta]
 */

/** The run to import into: an existing one (--run), or a new one (--app, --label). @param {RunFlags} flags */
export function runTarget(flags) {
  if (flags.run !== undefined) {
    if (flags.app !== undefined || flags.label !== undefined)
      throw new ConfigError('give either --run ID or --app A --label L (a new run), not both', { variable: '--run' });
    return { runId: /** @type {number} */ (numberFlag(flags.run, '--run', { integer: true, min: 1 })) };
  }
  if (flags.app === undefined || flags.label === undefined)
    throw new ConfigError('--run ID, or --app A and --label L for a new run, is required', { variable: '--run' });
  return {
    spec: {
      label: flags.label,
      appName: flags.app,
      implementation: flags.impl,
      instances: numberFlag(flags.instances, '--instances', { integer: true, min: 1 }),
      parallel: numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }),
      meta: keyValueFlags(flags.meta ?? [], '--meta'),
    },
  };
}

/** @param {string | undefined} text @param {number} fallback */
export function skippedRatioFlag(text, fallback) {
  if (text === undefined) return fallback;
  const ratio = numberFlag(text, '--max-skipped-ratio');
  if (ratio === undefined || ratio > 1)
    throw new ConfigError(`--max-skipped-ratio must be a ratio from 0 to 1, e.g. 0.01 (got ${text})`, {
      variable: '--max-skipped-ratio',
    });
  return ratio;
}
