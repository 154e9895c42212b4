// `paasmon changes`: the change points in the history of runs of one label or one app (the view
// run_history), with Apache Otava's method (report/changes/). A change point is information, not
// a failure: the exit code is 0 whatever is found.
import { ConfigError } from '../../core/errors.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { loadRunHistory } from '../../exporters/postgres/queries/changes.js';
import { DEFAULT_CHANGE_OPTIONS, FIGURE_NAMES, findChanges } from '../../report/changes/history.js';
import { CHANGE_FORMATS, changesRenderer } from '../../report/changes/render.js';
import { numberFlag } from './flags.js';

/**
 * @typedef {{ label?: string, app?: string, figure?: string, format?: string, pValue?: string,
 *   magnitude?: string, window?: string, minSegment?: string }} ChangesFlags
 */

/** @param {ChangesFlags} flags */
function changeOptions(flags) {
  const maxPValue = numberFlag(flags.pValue, '--p-value') ?? DEFAULT_CHANGE_OPTIONS.maxPValue;
  if (maxPValue <= 0 || maxPValue > 1)
    throw new ConfigError(`--p-value must be above 0 and at most 1, got ${maxPValue}`, { variable: '--p-value' });
  return {
    maxPValue,
    minMagnitude: numberFlag(flags.magnitude, '--magnitude') ?? DEFAULT_CHANGE_OPTIONS.minMagnitude,
    window: numberFlag(flags.window, '--window', { min: 2, integer: true }) ?? DEFAULT_CHANGE_OPTIONS.window,
    minSegment:
      numberFlag(flags.minSegment, '--min-segment', { min: 1, integer: true }) ?? DEFAULT_CHANGE_OPTIONS.minSegment,
  };
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {ChangesFlags} flags
 */
export async function changesCommand(config, { log, out }, flags) {
  const format = flags.format ?? 'table';
  if (!CHANGE_FORMATS.includes(/** @type {any} */ (format)))
    throw new ConfigError(`--format must be one of ${CHANGE_FORMATS.join(', ')}, got ${JSON.stringify(format)}`, {
      variable: '--format',
    });
  if ((flags.label === undefined) === (flags.app === undefined))
    throw new ConfigError('choose the history with one of --label L or --app A (see `paasmon run list`)', {
      variable: '--label',
    });
  if (flags.figure !== undefined && !FIGURE_NAMES.includes(flags.figure))
    throw new ConfigError(`--figure must be one of ${FIGURE_NAMES.join(', ')}, got ${JSON.stringify(flags.figure)}`, {
      variable: '--figure',
    });
  const options = changeOptions(flags);
  const selection = { label: flags.label, app: flags.app };
  return withMigratedDatabase(config, log, async (pool) => {
    const runs = await loadRunHistory(pool, selection);
    if (runs.length === 0)
      throw new ConfigError(
        `no ended run of ${flags.label !== undefined ? `label ${JSON.stringify(flags.label)}` : `app ${flags.app}`} ` +
          '(see `paasmon run list`)',
        { variable: flags.label !== undefined ? '--label' : '--app' },
      );
    const changePoints = findChanges(runs, { ...options, only: flags.figure });
    const render = changesRenderer(/** @type {any} */ (format));
    const result = {
      selection: { ...selection, figure: flags.figure },
      options,
      runs,
      figures: flags.figure ? [flags.figure] : FIGURE_NAMES,
      changePoints,
    };
    out(render(result).replace(/\n$/, ''));
    return 0;
  });
}
