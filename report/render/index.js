// `paasmon report --format`: one renderer per format, each (comparison) => text. Loaded on use:
// the html renderer brings ECharts, slow to import, for nothing in a table.

const RENDERERS = {
  table: async () => (await import('./table.js')).renderTable,
  md: async () => (await import('./markdown.js')).renderMarkdown,
  csv: async () => (await import('./csv.js')).renderCsv,
  json: async () => (await import('./json.js')).renderJson,
  html: async () => (await import('./html.js')).renderHtml,
};

/** @typedef {keyof typeof RENDERERS} ReportFormat */

/** @type {ReportFormat[]} */
export const FORMATS = /** @type {ReportFormat[]} */ (Object.keys(RENDERERS));

/**
 * The renderer of `format`, loaded now: a format whose optional dependency is missing (html:
 * ECharts) fails here, before any query is run for it.
 * @param {ReportFormat} format
 * @returns {Promise<(comparison: import('../comparison.js').Comparison,
 *   options?: { compare?: import('../compare/html.js').CompareResult }) => string>} options: html's only
 */
export async function rendererFor(format) {
  if (!Object.hasOwn(RENDERERS, format)) {
    throw new Error(`unknown report format ${JSON.stringify(format)}; use one of ${FORMATS.join(', ')}`);
  }
  return RENDERERS[format]();
}

/**
 * @param {import('../comparison.js').Comparison} comparison @param {ReportFormat} format
 * @returns {Promise<string>}
 */
export async function renderComparison(comparison, format) {
  return (await rendererFor(format))(comparison);
}
