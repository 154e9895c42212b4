// `paasmon changes --format table|md|json`: the change points found in a history of runs.
import { escapeMarkdown } from '../render/markdown.js';
import { printable, wrapped, TERMINAL_WIDTH } from '../render/table.js';

export const CHANGE_FORMATS = /** @type {const} */ (['table', 'md', 'json']);

/**
 * @typedef {object} ChangesResult
 * @property {{ label?: string, app?: string, figure?: string }} selection
 * @property {Required<import('./otava.js').ChangeOptions>} options
 * @property {import('./history.js').HistoryRow[]} runs oldest first
 * @property {string[]} figures the figures searched
 * @property {import('./history.js').ChangePointRow[]} changePoints
 */

const MIB = 1024 * 1024;

/** A figure's value as shown: MiB for bytes, % for ratios. @param {number} value @param {string} unit */
function shown(value, unit) {
  if (unit === 'bytes') return `${(value / MIB).toFixed(1)} MiB`;
  if (unit === 'ratio') return `${(value * 100).toFixed(2)} %`;
  const digits = Math.abs(value) >= 100 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return `${value.toFixed(digits)} ${unit}`;
}

/** @param {number} p */
const pValue = (p) => (p < 1e-4 ? p.toExponential(1) : p.toFixed(4));

/** @param {ChangesResult} result */
function summary(result) {
  const { selection, options, runs, changePoints } = result;
  const what = selection.label !== undefined ? `label ${JSON.stringify(selection.label)}` : `app ${selection.app}`;
  const span = runs.length ? ` (runs ${runs[0].run_id} .. ${runs[runs.length - 1].run_id})` : '';
  const method =
    `E-divisive means with a t-test (Apache Otava's method): p <= ${options.maxPValue}, window ${options.window}, ` +
    `magnitude > ${options.minMagnitude}, at least ${options.minSegment} run${options.minSegment === 1 ? '' : 's'} ` +
    'between change points';
  const found = changePoints.length
    ? `${changePoints.length} change point${changePoints.length === 1 ? '' : 's'}`
    : 'no change point';
  const lines = [`${runs.length} ended run${runs.length === 1 ? '' : 's'} of ${what}${span}: ${found}.`, method];
  if (runs.length < 2 * options.minSegment)
    lines.push(`Too few runs to find a change: at least ${2 * options.minSegment} are needed.`);
  return lines;
}

/** @param {ChangesResult} result @returns {{ header: string[], rows: string[][] }} */
function changeTable(result) {
  const header = ['first run', 'figure', 'before', 'after', 'change', 'p-value', 'direction', 'layer'];
  const rows = result.changePoints.map((c) => [
    String(c.run_id),
    c.figure,
    shown(c.mean_before, c.unit),
    shown(c.mean_after, c.unit),
    `${c.change_percent >= 0 ? '+' : ''}${c.change_percent.toFixed(1)} %`,
    pValue(c.p_value),
    c.direction,
    c.layer ?? '-',
  ]);
  return { header, rows };
}

const LEGEND = [
  'first run: the first run after the change; before/after: mean over the runs since the previous change point ' +
    'and up to the next one (of this figure)',
  "layer: of the latency layers' means (outside_router, router, behind_router), the one that changed most " +
    'across the same runs',
];

/** @param {ChangesResult} result */
export function renderChangesTable(result) {
  const { header, rows } = changeTable(result);
  const cells = [header, ...rows].map((r) => r.map(printable));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const numeric = new Set([0, 2, 3, 4, 5]);
  const lines = cells.map((r) =>
    r
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  const head = summary(result).map((l) => wrapped(printable(l), TERMINAL_WIDTH));
  if (!rows.length) return `${head.join('\n')}\n`;
  const legend = LEGEND.map((l) => `  ${wrapped(l, TERMINAL_WIDTH - 2, '    ')}`);
  return `${[...head, '', ...lines, '', 'where', ...legend].join('\n')}\n`;
}

/** @param {ChangesResult} result */
export function renderChangesMarkdown(result) {
  const { header, rows } = changeTable(result);
  const row = (/** @type {string[]} */ cells) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const blocks = ['# Change points', summary(result).map(escapeMarkdown).join('\n\n')];
  if (rows.length) {
    const align = header.map((_, i) => ([0, 2, 3, 4, 5].includes(i) ? '---:' : ':---'));
    blocks.push([row(header), `|${align.join('|')}|`, ...rows.map(row)].join('\n'));
    blocks.push(LEGEND.map((l) => `- ${escapeMarkdown(l)}`).join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}

/** @param {ChangesResult} result */
export function renderChangesJson(result) {
  const { selection, options, runs, figures, changePoints } = result;
  const json = {
    selection,
    options: {
      p_value: options.maxPValue,
      magnitude: options.minMagnitude,
      window: options.window,
      min_segment: options.minSegment,
    },
    runs: runs.map((r) => ({ run_id: r.run_id, label: r.label, started_at: r.started_at })),
    figures,
    change_points: changePoints,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** @param {(typeof CHANGE_FORMATS)[number]} format */
export const changesRenderer = (format) =>
  ({ table: renderChangesTable, md: renderChangesMarkdown, json: renderChangesJson })[format];
