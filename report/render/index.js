// `paasmon report --format`: one renderer per format, each (comparison) => text.
import { renderCsv } from './csv.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderTable } from './table.js';

export const RENDERERS = { table: renderTable, md: renderMarkdown, csv: renderCsv, json: renderJson, html: renderHtml };

/** @typedef {keyof typeof RENDERERS} ReportFormat */

/** @param {import('../comparison.js').Comparison} comparison @param {ReportFormat} format */
export function renderComparison(comparison, format) {
  const render = RENDERERS[format];
  if (!render) throw new Error(`unknown report format ${JSON.stringify(format)}; use one of ${Object.keys(RENDERERS).join(', ')}`);
  return render(comparison);
}
