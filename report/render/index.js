// `paasmon report --format`: one renderer per format, each (comparison) => text. Loaded on use:
// the html renderer brings ECharts, which takes a second to import, for nothing in a table.

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
 * @param {import('../comparison.js').Comparison} comparison @param {ReportFormat} format
 * @returns {Promise<string>}
 */
export async function renderComparison(comparison, format) {
  if (!Object.hasOwn(RENDERERS, format)) {
    throw new Error(`unknown report format ${JSON.stringify(format)}; use one of ${FORMATS.join(', ')}`);
  }
  return (await RENDERERS[format]())(comparison);
}
