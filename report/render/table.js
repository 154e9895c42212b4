// Terminal output: fixed-width tables, the unit in every heading. Control characters in data
// (a label with a newline) are shown escaped so they cannot break the layout or the terminal.
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

/** Longest data cell a terminal shows whole; md, csv, json and html keep every value whole. */
const MAX_CELL = 28;

/** @param {string} cell */
const clipped = (cell) => (cell.length > MAX_CELL ? `${cell.slice(0, MAX_CELL - 1)}…` : cell);

/** @param {import('./sections.js').Table} table */
function alignedTable(table) {
  // The first column names the figure and stays whole; a long value (a run's meta) would make
  // every column as wide as itself.
  const cells = [table.header, ...table.rows].map((row) =>
    row.map((c, i) => (i ? clipped(printable(c)) : printable(c))),
  );
  const widths = table.header.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (table.numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** @param {import('../comparison.js').Comparison} comparison */
export function renderTable(comparison) {
  const sections = comparisonSections(comparison);
  const blocks = sections.tables.map((t) => `${t.title}\n${alignedTable(t)}`);
  for (const text of [sections.scaling, sections.notes]) {
    if (text.lines.length) blocks.push(`${text.title}\n${text.lines.map((l) => `  ${printable(l)}`).join('\n')}`);
  }
  return `${blocks.join('\n\n')}\n`;
}
