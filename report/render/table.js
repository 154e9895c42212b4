// Terminal output: fixed-width tables no wider than a 100-column terminal, the unit in every
// heading and a legend of the definitions below. Control characters in data (a label with a
// newline) are shown escaped so they cannot break the layout or the terminal.
import { comparisonSections } from './sections.js';

// C0 and C1 control characters: matching them is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** @param {string} text */
export const printable = (text) =>
  text.replace(
    CONTROL,
    (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** Columns of the terminal the table is made for. */
export const TERMINAL_WIDTH = 100;
/** Longest cell a terminal shows whole; md, csv, json and html keep every value whole. */
const MAX_CELL = 28;
const GAP = '  ';

/** Narrowest a clipped column gets so that runs stay side by side; narrower, they go in blocks. */
const MIN_CELL = 12;

/** @param {string} cell @param {number} [max] */
const clipped = (cell, max = MAX_CELL) => (cell.length > max ? `${cell.slice(0, max - 1)}…` : cell);

/**
 * `text` in lines of at most `width` columns, broken at spaces (a longer word is cut), each
 * continuation indented by `indent`.
 * @param {string} text @param {number} width @param {string} [indent]
 */
export function wrapped(text, width, indent = '') {
  const lines = [];
  let line = '';
  const room = () => width - (lines.length ? indent.length : 0);
  for (let word of text.split(' ')) {
    if (line && line.length + 1 + word.length > room()) {
      lines.push(line);
      line = '';
    }
    while (!line && word.length > room()) {
      lines.push(word.slice(0, room()));
      word = word.slice(lines.at(-1)?.length);
    }
    line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.map((l, i) => (i ? `${indent}${l}` : l)).join('\n');
}

/**
 * The columns after the first, in groups that fit the terminal next to the first: a comparison of
 * many runs is shown as several blocks of runs, each with the figure names.
 * @param {number[]} widths
 */
function columnBlocks(widths) {
  const blocks = [];
  let block = [];
  let used = widths[0];
  for (let i = 1; i < widths.length; i++) {
    const need = GAP.length + widths[i];
    if (block.length && used + need > TERMINAL_WIDTH) {
      blocks.push(block);
      block = [];
      used = widths[0];
    }
    block.push(i);
    used += need;
  }
  if (block.length || !blocks.length) blocks.push(block);
  return blocks;
}

/** @param {import('./sections.js').Table} table */
function alignedTable(table) {
  // A long value (a run's meta, a path) would make every column as wide as itself: cells are clipped,
  // tighter when that keeps every column beside the first on one terminal line.
  const shown = [table.header, ...table.rows].map((row) => row.map(printable));
  const natural = table.header.map((_, i) => Math.max(...shown.map((row) => clipped(row[i]).length)));
  const fitting = Math.floor((TERMINAL_WIDTH - natural[0]) / Math.max(1, natural.length - 1)) - GAP.length;
  const fits = natural.slice(1).reduce((sum, w) => sum + GAP.length + w, natural[0]) <= TERMINAL_WIDTH;
  const max = fits || fitting < MIN_CELL ? MAX_CELL : fitting;
  const cells = shown.map((row) => row.map((c, i) => clipped(c, i ? max : MAX_CELL)));
  const widths = table.header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const render = (/** @type {number[]} */ columns) =>
    cells
      .map((row) =>
        columns
          .map((i) => (table.numeric[i] ? row[i].padStart(widths[i]) : row[i].padEnd(widths[i])))
          .join(GAP)
          .trimEnd(),
      )
      .join('\n');
  const blocks = columnBlocks(widths).map((block) => render([0, ...block]));
  const legend = (table.legend ?? []).map((line) => `  ${wrapped(printable(line), TERMINAL_WIDTH - 2, '    ')}`);
  return [blocks.join('\n\n'), ...(legend.length ? ['', 'where', ...legend] : [])].join('\n');
}

/** @param {import('../comparison.js').Comparison} comparison */
export function renderTable(comparison) {
  const sections = comparisonSections(comparison);
  const blocks = sections.tables.map((t) => `${wrapped(t.title, TERMINAL_WIDTH)}\n${alignedTable(t)}`);
  for (const text of [sections.scaling, sections.notes]) {
    if (text.lines.length) {
      const lines = text.lines.map((l) => `  ${wrapped(printable(l), TERMINAL_WIDTH - 2, '    ')}`);
      blocks.push(`${wrapped(text.title, TERMINAL_WIDTH)}\n${lines.join('\n')}`);
    }
  }
  return `${blocks.join('\n\n')}\n`;
}
