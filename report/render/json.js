// JSON: the whole comparison (runs with the stable column names, rounds, errors, paths,
// instance series, scaling fits, notes).
/** @param {import('../comparison.js').Comparison} comparison */
export function renderJson(comparison) {
  return `${JSON.stringify(comparison, null, 2)}\n`;
}
