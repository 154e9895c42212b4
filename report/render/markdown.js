// GitHub-flavoured Markdown. Every data string is escaped: HTML special characters become
// entities (a label `<script>` shows as text), Markdown punctuation is backslash-escaped, a `|`
// cannot end a cell and a newline becomes <br>.
import escapeHtml from 'escape-html';
import { comparisonSections } from './sections.js';

/** @param {string} text */
export function escapeMarkdown(text) {
  // Backslashes first: escape-html's entities (&#39;) must not be escaped again.
  return escapeHtml(text.replace(/[\\`*_{}[\]()#+!|~-]/g, (c) => `\\${c}`)).replace(/\r\n|\r|\n/g, '<br>');
}

/** @param {import('./sections.js').Table} table */
function markdownTable(table) {
  const row = (/** @type {string[]} */ cells) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const lines = [
    row(table.header),
    `|${table.numeric.map((n) => (n ? '---:' : ':---')).join('|')}|`,
    ...table.rows.map(row),
  ];
  const legend = (table.legend ?? []).map((line) => `- ${escapeMarkdown(line)}`);
  return [...lines, ...(legend.length ? ['', 'where', '', ...legend] : [])].join('\n');
}

/** @param {import('../comparison.js').Comparison} comparison */
export function renderMarkdown(comparison) {
  const sections = comparisonSections(comparison);
  const blocks = [`# Run comparison\n\nGenerated ${comparison.generatedAt}.`];
  for (const table of sections.tables) blocks.push(`## ${table.title}\n\n${markdownTable(table)}`);
  for (const text of [sections.scaling, sections.notes]) {
    if (text.lines.length)
      blocks.push(`## ${text.title}\n\n${text.lines.map((l) => `- ${escapeMarkdown(l)}`).join('\n')}`);
  }
  return `${blocks.join('\n\n')}\n`;
}
