// Turns the rows loaded for some runs into the comparison every format renders: numbers as
// numbers, notes on missing data (naming the command that collects it), rounds and the scaling fits.
import { confidenceInterval } from './statistics.js';
import { fitUsl, MIN_POINTS, UslError } from './usl.js';

export { DEFAULT_TRIM } from './default-trim.js';

/**
 * @typedef {Record<string, any>} Row
 * @typedef {{ key: string, by: 'parallel' | 'instances' | null,
 *   points: Array<{ n: number, throughput: number, runId: number }>,
 *   fit: import('./usl.js').UslFit | null, message: string | null }} Scaling
 * @typedef {object} Comparison
 * @property {string} generatedAt ISO time
 * @property {number} trim fraction dropped at each end of a run
 * @property {Row[]} runs one per run, the columns of report/columns.js
 * @property {Row[]} errors errors by kind and status per run
 * @property {Row[]} rounds repeated runs of one setting: mean and 95 % CI
 * @property {Row[]} instanceSeries CPU and memory per instance, seconds since run start
 * @property {Row[]} paths the busiest request paths per run (router records)
 * @property {Scaling[]} scaling USL fit per implementation
 * @property {string[]} notes
 */

/** Numeric strings (int8, numeric, int8[] that pg leaves as text) as numbers. @param {Row} row */
function numbers(row) {
  /** @type {Row} */
  const out = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Date) out[key] = value.toISOString();
    else if (Array.isArray(value))
      out[key] = value.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v));
    else out[key] = value;
  }
  return out;
}

/**
 * @param {{ runs: Row[], errors: Row[], instanceSeries: Row[], paths: Row[] }} data
 * @param {{ trim: number, scaleBy?: 'auto' | 'parallel' | 'instances', now?: Date }} options
 * @returns {Comparison}
 */
export function buildComparison(data, options) {
  const runs = data.runs.map((row) => {
    const run = numbers(row);
    return { ...run, cpu_readings_per_instance: readingsPerInstance(run, data.instanceSeries, options.trim) ?? null };
  });
  return {
    generatedAt: (options.now ?? new Date()).toISOString(),
    trim: options.trim,
    runs,
    errors: data.errors.map(numbers),
    rounds: roundsOf(runs),
    instanceSeries: data.instanceSeries.map(numbers),
    paths: data.paths.map(numbers),
    scaling: scalingFits(runs, options.scaleBy ?? 'auto'),
    notes: runs.flatMap((run) => missingDataNotes(run, options.trim, run.cpu_readings_per_instance ?? undefined)),
  };
}

const ROUND_KEYS = ['label', 'app_name', 'implementation', 'instances', 'parallel', 'cores_per_instance'];
const ROUND_FIGURES = ['throughput_rps', 'e2e_mean_ms', 'e2e_p95_ms', 'cpu_percent_avg', 'rpm_per_cpu_percent'];

/**
 * Runs of one setting repeated (same label, app, implementation, instances, parallel, cores per
 * instance): mean and 95 % confidence interval (Student t) of each figure, as sql/queries/rounds.sql.
 * @param {Row[]} runs
 */
export function roundsOf(runs) {
  /** @type {Map<string, Row[]>} */
  const groups = new Map();
  for (const run of runs) {
    const key = JSON.stringify(ROUND_KEYS.map((k) => run[k]));
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups.values()].map((members) => {
    /** @type {Row} */
    const row = Object.fromEntries(ROUND_KEYS.map((k) => [k, members[0][k]]));
    row.rounds = members.length;
    row.run_ids = members.map((m) => m.run_id);
    for (const figure of ROUND_FIGURES) {
      const ci = confidenceInterval(members.map((m) => m[figure]).filter((v) => v != null));
      row[`${figure}_mean`] = ci.mean;
      row[`${figure}_ci95`] = ci.halfWidth;
    }
    return row;
  });
}

/** @param {Row} run @param {number} trim @param {number | undefined} readings the fewest of an instance */
function missingDataNotes(run, trim, readings) {
  const notes = [];
  const name = `run ${run.run_id} (${run.label})`;
  if (!run.requests) {
    notes.push(
      `${name}: no load-generator requests in its window; ` +
        `record them with \`paasmon loadgen --run ${run.run_id} --url ...\``,
    );
  } else if (!run.router_records) {
    notes.push(
      `${name}: no router records matched its requests, so the router and breakdown columns are empty; ` +
        'ingest the gorouter logs with `paasmon ingest` (or `paasmon ingest --file`), ' +
        `then check \`paasmon correlate --run ${run.run_id}\``,
    );
  }
  if (!run.cpu_polls) {
    notes.push(
      `${name}: no instance samples of app ${run.app_name ?? '(none)'} in its window, ` +
        'so the CPU and memory columns are empty; ' +
        'run `paasmon collect` (CF_APPS including the app) while the run goes on',
    );
  }
  const fewReadings = fewReadingsNote(run, trim, readings);
  if (fewReadings) notes.push(`${name}: ${fewReadings}`);
  if (run.cpu_polls && !(run.instances && run.cores_per_instance)) {
    notes.push(
      `${name}: no --instances or --cores-per-instance, so CPU capacity and utilisation are empty; ` +
        'give them to `paasmon run start`',
    );
  }
  return notes;
}

/** Readings of the platform a CPU figure should rest on at least. */
export const MIN_CPU_READINGS = 10;

/**
 * The fewest readings of one of the run's instances inside its steady window: samples with CPU that
 * are no repeat (instance series of the whole run, t_s from its start; the window is what the trim
 * leaves of it: it opens trim x the run's span after its start). Undefined without series.
 * @param {Row} run @param {Row[]} series @param {number} trim @returns {number | undefined}
 */
export function readingsPerInstance(run, series, trim) {
  const windowS = Number(run.window_s);
  const startS = (trim * windowS) / Math.max(1e-9, 1 - 2 * trim);
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const s of series) {
    if (s.run_id !== run.run_id || s.repeated === true) continue;
    const key = `${s.process_type}/${s.instance_index}`;
    const inside = !Number.isFinite(startS) || (s.t_s >= startS && s.t_s <= startS + windowS);
    counts.set(key, (counts.get(key) ?? 0) + (inside ? 1 : 0));
  }
  return counts.size ? Math.min(...counts.values()) : undefined;
}

/**
 * When a run's CPU figures rest on fewer than MIN_CPU_READINGS of the platform's readings of an instance
 * (the Cloud Controller repeats its latest measurement between two of them): how many, and the run
 * length that would give enough at the interval seen.
 * @param {Row} run @param {number} trim of each end (the window is the run less it)
 * @param {number | undefined} perInstance the fewest readings of an instance; else the sampling moments
 * @returns {string | undefined}
 */
export function fewReadingsNote(run, trim, perInstance) {
  const readings = perInstance ?? Number(run.cpu_polls);
  const windowS = Number(run.window_s);
  if (!Number(run.cpu_polls) || readings >= MIN_CPU_READINGS || !(windowS > 0)) return undefined;
  const intervalS = windowS / Math.max(1, readings);
  const span = (MIN_CPU_READINGS * intervalS) / Math.max(0.2, 1 - 2 * trim);
  return (
    `its CPU figures rest on ${readings} reading${readings === 1 ? '' : 's'} of the platform per instance in ` +
    `its ${windowS.toFixed(0)} s window (about one every ${intervalS.toFixed(1)} s); ` +
    `a run of at least ${Math.ceil(span)} s would give ${MIN_CPU_READINGS}`
  );
}

/**
 * One USL fit per implementation (or app), on throughput against the load that varies there; with
 * the load given (--scale-by) and the other one varying too, one fit per value of the other (a
 * parallel sweep at 1 and at 2 instances is two curves, not one cloud).
 * @param {Row[]} runs @param {'auto' | 'parallel' | 'instances'} scaleBy @returns {Scaling[]}
 */
export function scalingFits(runs, scaleBy) {
  /** @type {Map<string, Row[]>} */
  const groups = new Map();
  for (const run of runs) {
    const key = run.implementation ?? run.app_name ?? run.label;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups].flatMap(([key, members]) => {
    const other = scaleBy === 'parallel' ? 'instances' : scaleBy === 'instances' ? 'parallel' : null;
    const values = other ? [...new Set(members.map((m) => m[other]))] : [];
    if (!other || values.length <= 1) return [groupFit(key, members, scaleBy)];
    return values
      .sort((a, b) => (a ?? 0) - (b ?? 0))
      .map((value) => {
        const unit = other === 'instances' ? `instance${value === 1 ? '' : 's'}` : 'in flight';
        // Runs without parallel requests are the open model's (a rate instead).
        const unset = `${key}, ${other === 'parallel' ? 'open model' : 'no instance count'}`;
        return groupFit(
          value == null ? unset : `${key} at ${value} ${unit}`,
          members.filter((m) => m[other] === value),
          scaleBy,
        );
      });
  });
}

/**
 * @param {string} key @param {Row[]} members @param {'auto' | 'parallel' | 'instances'} scaleBy
 * @returns {Scaling}
 */
function groupFit(key, members, scaleBy) {
  const distinct = (/** @type {string} */ column) =>
    new Set(members.map((m) => m[column]).filter((v) => v != null)).size;
  const measured = members.filter((m) => m.throughput_rps != null).length;
  if (measured < MIN_POINTS) {
    return {
      key,
      by: null,
      points: [],
      fit: null,
      message:
        `no scalability fit: the Universal Scalability Law needs at least ${MIN_POINTS} runs ` +
        `with a throughput, got ${measured}`,
    };
  }
  /** @type {'parallel' | 'instances' | null} */
  let by = scaleBy === 'auto' ? null : scaleBy;
  if (by === null) {
    if (distinct('parallel') > 1 && distinct('instances') <= 1) by = 'parallel';
    else if (distinct('instances') > 1 && distinct('parallel') <= 1) by = 'instances';
  }
  if (by === null) {
    const message =
      distinct('parallel') > 1
        ? 'both parallel requests and instances vary: choose the load with --scale-by parallel|instances'
        : 'the load (parallel requests, instances) does not vary between these runs';
    return { key, by, points: [], fit: null, message };
  }
  const load = by;
  const points = members
    .filter((m) => m[load] != null && m.throughput_rps != null)
    .map((m) => ({ n: Number(m[load]), throughput: Number(m.throughput_rps), runId: Number(m.run_id) }));
  try {
    return { key, by, points, fit: fitUsl(points), message: null };
  } catch (err) {
    if (!(err instanceof UslError)) throw err;
    return { key, by, points, fit: null, message: `no scalability fit: ${err.message}` };
  }
}

export { MIN_POINTS };
