// The comparison as titled tables of display strings, shared by the table, markdown and html
// renderers (each escapes for its own medium).
import { RUN_COLUMNS, formatValue } from '../columns.js';

/**
 * @typedef {{ title: string, header: string[], rows: string[][], numeric: boolean[], legend?: string[] }} Table
 * @typedef {{ title: string, lines: string[] }} Text
 * @typedef {{ tables: Table[], scaling: Text, notes: Text }} Sections
 */

/** @param {number | null | undefined} value @param {number} digits */
const fixed = (value, digits) =>
  value === null || value === undefined || !Number.isFinite(value) ? '' : value.toFixed(digits);

/** @param {number | null} value a figure shown with 4 significant digits */
const sig = (value) => (value !== null && Number.isFinite(value) ? Number(value.toPrecision(4)).toString() : '');
/** @param {number} value @param {number | null} error standard error; null when the value is held at its bound */
const withError = (value, error) => (error === null ? `${sig(value)} (at its bound)` : `${sig(value)} ± ${sig(error)}`);

/**
 * @param {import('../comparison.js').Comparison} comparison
 * @returns {Sections}
 */
export function comparisonSections(comparison) {
  /** @type {Table[]} */
  const tables = [runsTable(comparison)];
  const repeated = comparison.rounds.filter((r) => r.rounds > 1);
  if (repeated.length) tables.push(roundsTable(repeated));
  if (comparison.paths.length) tables.push(pathsTable(comparison.paths));
  if (comparison.errors.length) tables.push(errorsTable(comparison.errors));
  return {
    tables,
    scaling: {
      title: 'Scalability (Universal Scalability Law, X(N) = λN / (1 + σ(N-1) + κN(N-1)))',
      lines: comparison.scaling.map(scalingLine),
    },
    notes: { title: 'Missing data', lines: comparison.notes },
  };
}

/** @typedef {Record<string, any>} Row */

/**
 * Every figure of every run, a column per run, with the definitions below.
 * @param {import('../comparison.js').Comparison} comparison @returns {Table}
 */
function runsTable({ runs, trim }) {
  return {
    title: `Runs side by side (steady window: first and last ${fixed(trim * 100, 0)} % of each run dropped)`,
    header: ['figure', ...runs.map((r) => `run ${r.run_id}`)],
    rows: RUN_COLUMNS.slice(1).map((column) => [column.header, ...runs.map((r) => formatValue(r[column.key], column))]),
    numeric: [false, ...runs.map(() => true)],
    legend: RUN_COLUMNS.flatMap((c) => (c.definition ? [`${c.header}: ${c.definition}`] : [])),
  };
}

/** Settings run more than once: each figure's mean and confidence interval. @param {Row[]} repeated @returns {Table} */
function roundsTable(repeated) {
  const ci = (/** @type {Row} */ r, /** @type {string} */ key, /** @type {number} */ digits) =>
    r[`${key}_ci95`] == null
      ? fixed(r[`${key}_mean`], digits)
      : `${fixed(r[`${key}_mean`], digits)} ± ${fixed(r[`${key}_ci95`], digits)}`;
  return {
    title: 'Rounds: mean ± 95 % confidence interval (Student t, n - 1 degrees of freedom)',
    header: [
      'label',
      'implementation',
      'instances',
      'parallel requests',
      'rounds',
      'runs',
      'throughput req/s',
      'e2e mean ms',
      'e2e p95 ms',
      'CPU avg % of a core',
      'req/min per CPU %',
    ],
    rows: repeated.map((r) => [
      r.label,
      r.implementation ?? '',
      fixed(r.instances, 0),
      fixed(r.parallel, 0),
      String(r.rounds),
      (r.run_ids ?? []).join(','),
      ci(r, 'throughput_rps', 1),
      ci(r, 'e2e_mean_ms', 2),
      ci(r, 'e2e_p95_ms', 2),
      ci(r, 'cpu_percent_avg', 1),
      ci(r, 'rpm_per_cpu_percent', 1),
    ]),
    numeric: [false, false, true, true, true, false, true, true, true, true, true],
  };
}

/** @param {Row[]} paths @returns {Table} */
function pathsTable(paths) {
  return {
    title: 'Busiest request paths (router records, steady window)',
    header: ['run', 'path', 'requests', 'router mean ms', 'router p95 ms'],
    rows: paths.map((p) => [
      String(p.run_id),
      p.path ?? '',
      String(p.requests),
      fixed(p.response_time_mean_ms, 2),
      fixed(p.response_time_p95_ms, 2),
    ]),
    numeric: [true, false, true, true, true],
  };
}

/** @param {Row[]} errors @returns {Table} */
function errorsTable(errors) {
  return {
    title: 'Errors by kind and status (steady window)',
    header: ['run', 'outcome', 'requests', '% of requests'],
    rows: errors.map((e) => [String(e.run_id), e.outcome, String(e.requests), fixed(e.ratio * 100, 2)]),
    numeric: [true, false, true, true],
  };
}

/** @param {import('../comparison.js').Scaling} s */
function scalingLine(s) {
  if (!s.fit) return `${s.key}${s.by ? ` (load: ${s.by})` : ''}: ${s.message}`;
  const f = s.fit;
  const peak = f.peakN === null ? 'no peak (κ = 0)' : `peak at N* = ${f.peakN}: ${sig(f.peakThroughput)} req/s`;
  return (
    `${s.key} (load: ${s.by === 'parallel' ? 'parallel requests' : 'instances'}, ${f.points} runs): ` +
    `λ = ${withError(f.lambda, f.standardErrors.lambda)} req/s, σ = ${withError(f.sigma, f.standardErrors.sigma)}, ` +
    `κ = ${withError(f.kappa, f.standardErrors.kappa)} (± standard error); ${peak}`
  );
}
