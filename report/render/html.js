// One self-contained HTML file: inline SVG charts rendered on the server, the tables under them,
// inline CSS; no script, no font, no image, no link, so it opens offline and loads nothing.
// Every data string is escaped (escape-html); ECharts escapes the text it puts in the SVG.
import escapeHtml from 'escape-html';
import { reportCharts } from '../charts.js';
import { COMPARE_STYLE, compareSection } from '../compare/html.js';
import { comparisonSections } from './sections.js';

const STYLE = `
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
figure { margin: 2em 0; } figcaption { font-weight: bold; margin-bottom: .5em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; text-align: left; } .note { color: #8a4b00; }
.legend { font-size: 13px; color: #444; }
.verdict { font-size: 1.1em; }
${COMPARE_STYLE}
`;

/** @param {import('./sections.js').Table} table */
function htmlTable(table) {
  const head = `<tr>${table.header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = table.rows
    .map(
      (row) =>
        `<tr>${row
          .map((cell, i) =>
            table.numeric[i] ? `<td class="n">${escapeHtml(cell)}</td>` : `<td>${escapeHtml(cell)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
  const legend = table.legend?.length
    ? `\n<ul class="legend">${table.legend.map((l) => `<li>${escapeHtml(l)}</li>`).join('\n')}</ul>`
    : '';
  return `<h2>${escapeHtml(table.title)}</h2>\n<table>\n${head}\n${body}\n</table>${legend}`;
}

/**
 * @param {import('../comparison.js').Comparison} comparison
 * @param {{ compare?: import('../compare/html.js').CompareResult }} [options] compare: `paasmon compare`'s
 *   result of a baseline and a candidate, shown as the page's first section (its verdict, interval bars by layer)
 */
export function renderHtml(comparison, options = {}) {
  const sections = comparisonSections(comparison);
  const figures = reportCharts(comparison).map(
    (c) => `<figure data-chart="${escapeHtml(c.id)}" data-points="${c.points}">
<figcaption>${escapeHtml(c.title)}</figcaption>
${c.svg ?? `<p class="note">${escapeHtml(c.empty ?? '')}</p>`}
</figure>`,
  );
  const texts = [sections.scaling, sections.notes]
    .filter((t) => t.lines.length)
    .map(
      (t) => `<h2>${escapeHtml(t.title)}</h2>\n<ul>${t.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('\n')}</ul>`,
    );
  const section = options.compare
    ? `${compareSection(options.compare, { title: 'Baseline against candidate' })}\n`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paasmon run comparison</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Run comparison</h1>
<p>Runs ${comparison.runs.map((r) => escapeHtml(String(r.run_id))).join(', ')};
generated ${escapeHtml(comparison.generatedAt)}.</p>
${section}${figures.join('\n')}
${texts.join('\n')}
${sections.tables.map(htmlTable).join('\n')}
</body>
</html>
`;
}
