// CSV: one row per run, the stable column names of report/columns.js (unit in the name, values
// in the stored unit: ratios 0..1, bytes). csv-stringify quotes every field with a comma, quote or
// newline, so a path or label comes back intact.
import { stringify } from 'csv-stringify/sync';
import { RUN_COLUMNS } from '../columns.js';

/** @param {import('../comparison.js').Comparison} comparison */
export function renderCsv(comparison) {
  // meta as its JSON text; every other value as stored.
  return stringify(
    comparison.runs.map((run) =>
      RUN_COLUMNS.map((c) => (c.key === 'meta' ? JSON.stringify(run.meta ?? {}) : (run[c.key] ?? ''))),
    ),
    { header: true, columns: RUN_COLUMNS.map((c) => c.key) },
  );
}
