// Loads what `paasmon report` compares by running the files of sql/queries/ (the same text a user
// pastes into psql): psql's :'name' variables become positional parameters.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withClient } from '../client.js';
import { onSharedSnapshot } from '../shared-snapshot.js';
import { VIEWS_DIR, viewFiles } from '../migrate.js';
import { REPORT_CONNECTIONS } from '../../../core/tunables.js';

export const QUERIES_DIR = fileURLToPath(new URL('../../../sql/queries/', import.meta.url));

/** @type {Map<string, { text: string, parameters: string[] }>} */
const cache = new Map();

/**
 * A query file as text with $1..$n for its :'name' variables, and the names in that order.
 * @param {string} name file name without .sql
 */
export function loadSqlQuery(name) {
  let query = cache.get(name);
  if (!query) {
    const source = fs.readFileSync(`${QUERIES_DIR}${name}.sql`, 'utf8');
    /** @type {string[]} */
    const parameters = [];
    // psql's own commands (\\set defaults) and whole-line comments (which name :'variables') go.
    const text = source
      .split('\n')
      .filter((line) => !/^\s*(\\|--)/.test(line))
      .join('\n')
      .replace(/:'([A-Za-z_][A-Za-z0-9_]*)'/g, (_, variable) => {
        if (!parameters.includes(variable)) parameters.push(variable);
        return `$${parameters.indexOf(variable) + 1}`;
      });
    query = { text, parameters };
    cache.set(name, query);
  }
  return query;
}

/**
 * @param {import('pg').Pool | import('pg').PoolClient} db @param {string} name
 * @param {Record<string, string | number>} variables psql variables by name
 */
export async function runSqlQuery(db, name, variables) {
  const { text, parameters } = loadSqlQuery(name);
  const missing = parameters.filter((p) => variables[p] === undefined);
  if (missing.length) throw new Error(`sql/queries/${name}.sql needs ${missing.join(', ')}`);
  const { rows } = await db.query(
    text,
    parameters.map((p) => String(variables[p])),
  );
  return rows;
}

/** @param {number[]} ids */
export const pgArray = (ids) => `{${ids.join(',')}}`;

/**
 * Run ids chosen by id, label or start time; `missing` lists asked-for ids that do not exist.
 * @param {import('pg').Pool} pool
 * @param {{ runs?: number[], label?: string, since?: string }} selection since: ISO time
 */
export async function selectRuns(pool, selection) {
  const { rows } = await pool.query(
    `SELECT id FROM test_runs
    WHERE ($1::bigint[] IS NULL OR id = ANY ($1)) AND ($2::text IS NULL OR label = $2)
      AND ($3::timestamptz IS NULL OR started_at >= $3)
    ORDER BY id`,
    [selection.runs ? pgArray(selection.runs) : null, selection.label ?? null, selection.since ?? null],
  );
  const ids = rows.map((r) => Number(r.id));
  return { ids, missing: (selection.runs ?? []).filter((id) => !ids.includes(id)) };
}

/** The report's data, each a list of rows ordered by run, as these sql/queries files give it. */
const PARTS = /** @type {const} */ ({
  runs: 'run_comparison',
  errors: 'errors',
  instanceSeries: 'instance_series',
  paths: 'paths',
});
/** @typedef {Record<keyof typeof PARTS, Record<string, any>[]>} ReportData */
const PART_NAMES = /** @type {Array<keyof ReportData>} */ (Object.keys(PARTS));
/** Sorts and hash joins of a million-request run stay in memory instead of spilling to disk. */
const WORK_MEM = "SET LOCAL work_mem = '64MB'";

/**
 * The runs among these whose stored figures (over the steady window of `trim`) are current, by the
 * same data marks as loadReportData, without reading the figures themselves.
 * @param {import('pg').Pool | import('pg').PoolClient} db @param {number[]} runIds @param {number} trim
 * @returns {Promise<number[]>}
 */
export async function runsWithCurrentFigures(db, runIds, trim) {
  if (runIds.length === 0) return [];
  const { rows } = await db.query(
    // The marks and the match of loadReportData's query, without the figures.
    `WITH m AS MATERIALIZED (
      SELECT d.run_id, d.data_mark || ' ' || $3 || ' ' || (SELECT max(name) FROM paasmon_migrations) AS data_mark
      FROM run_data_marks($1::bigint[]) d)
    SELECT m.run_id FROM m
    WHERE EXISTS (SELECT 1 FROM run_report_figures f WHERE f.run_id = m.run_id AND f.trim_fraction = $2
      AND (f.data_mark = m.data_mark OR EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = m.run_id)))
    ORDER BY m.run_id`,
    [pgArray(runIds), trim, queriesDigest()],
  );
  return rows.map((row) => Number(row.run_id));
}

/**
 * Everything the report shows for these runs, read in one snapshot (one REPEATABLE READ
 * transaction), so the figures of different parts agree, computed in one pass over each run's
 * requests joined with their router records (run_report_parts). Rounds and the latency breakdown's
 * means come from run_comparison's rows (rounds.sql and latency_breakdown.sql give the same, and
 * more, in psql).
 * The figures of an ended run are stored once computed (run_report_figures) and read back while
 * its data is unchanged (run_data_marks), unless `recompute`.
 * @param {import('pg').Pool} pool @param {number[]} runIds
 * @param {{ trim: number, recompute?: boolean, log?: import('pino').Logger }} options
 * @returns {Promise<ReportData & { stored: number[] }>} stored: the runs whose figures were read back
 */
export async function loadReportData(pool, runIds, { trim, recompute = false, log }) {
  /** @type {Map<number, ReportData>} */
  const byRun = new Map();
  /** @type {Array<{ runId: number, mark: string, figures: ReportData }>} */
  const computed = [];
  /** @type {number[]} */
  let missing = [];
  // A failure discards the connection, and with it the read-only transaction.
  await withClient(pool, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(WORK_MEM);
    // A stored row is the figures of this data, by these query files, after this migration.
    const { rows: marks } = await client.query(
      `WITH m AS MATERIALIZED (
        SELECT d.run_id, d.data_mark || ' ' || $3 || ' ' || (SELECT max(name) FROM paasmon_migrations) AS data_mark
        FROM run_data_marks($1::bigint[]) d)
      SELECT m.run_id, m.data_mark, t.ended_at IS NOT NULL AS ended, f.figures::text AS figures, p.run_id AS pruned
      FROM m JOIN test_runs t ON t.id = m.run_id
      -- A run whose raw rows were pruned has only its stored figures (exporters/postgres/retention.js).
      LEFT JOIN run_prunes p ON p.run_id = m.run_id
      LEFT JOIN run_report_figures f ON f.run_id = m.run_id AND f.trim_fraction = $2
        AND (f.data_mark = m.data_mark OR p.run_id IS NOT NULL)`,
      [pgArray(runIds), trim, queriesDigest()],
    );
    for (const mark of marks)
      if (mark.figures && (!recompute || mark.pruned)) byRun.set(Number(mark.run_id), JSON.parse(mark.figures));
    missing = runIds.filter((id) => !byRun.has(id));
    if (missing.length) {
      const fresh = await reportPartsSideBySide(pool, client, missing, trim);
      for (const id of missing) {
        const figures = splitByRun(fresh, id);
        byRun.set(id, figures);
        const mark = marks.find((m) => Number(m.run_id) === id);
        if (mark?.ended) computed.push({ runId: id, mark: mark.data_mark, figures });
      }
    }
    await client.query('COMMIT');
  });
  await storeFigures(pool, computed, trim, log);
  const ordered = [...runIds].sort((a, b) => a - b).map((id) => /** @type {ReportData} */ (byRun.get(id)));
  /** @type {ReportData} */
  const data = { runs: [], errors: [], instanceSeries: [], paths: [] };
  for (const figures of ordered) {
    for (const part of PART_NAMES) data[part].push(...figures[part]);
  }
  return { ...data, stored: runIds.filter((id) => !missing.includes(id)) };
}

/**
 * The report's data of these runs from one pass over each run's requests (run_report_parts): the
 * rows of run_comparison.sql, errors.sql, paths.sql and instance_series.sql, as those files give them.
 * @param {import('pg').PoolClient} client @param {number[]} runIds @param {number} trim
 * @returns {Promise<ReportData>}
 */
async function reportParts(client, runIds, trim) {
  const { rows } = await client.query('SELECT * FROM run_report_parts($1::bigint[], $2)', [pgArray(runIds), trim]);
  /** @type {ReportData} */
  const data = { runs: [], errors: [], instanceSeries: [], paths: [] };
  for (const { error_rows: errors, path_rows: paths, instance_rows: instances, ...run } of rows) {
    data.runs.push(run);
    data.errors.push(...errors);
    data.paths.push(...paths);
    data.instanceSeries.push(...instances);
  }
  return data;
}

/**
 * reportParts of each run, the runs shared out among `client` and up to REPORT_CONNECTIONS - 1 more
 * connections on its snapshot (onSharedSnapshot): the same figures as one call, sooner.
 * @param {import('pg').Pool} pool @param {import('pg').PoolClient} client @param {number[]} runIds
 * @param {number} trim
 * @returns {Promise<ReportData>}
 */
async function reportPartsSideBySide(pool, client, runIds, trim) {
  const queue = [...runIds];
  /** @type {ReportData} */
  const data = { runs: [], errors: [], instanceSeries: [], paths: [] };
  const connections = Math.min(queue.length, REPORT_CONNECTIONS);
  await onSharedSnapshot(pool, client, connections - 1, async (worker) => {
    if (worker !== client) await worker.query(WORK_MEM);
    for (let runId = queue.shift(); runId !== undefined; runId = queue.shift()) {
      const parts = await reportParts(worker, [runId], trim);
      for (const part of PART_NAMES) data[part].push(...parts[part]);
    }
  });
  return data;
}

/**
 * md5 of the text of the query files the report's data is and of the views and functions they call:
 * editing one makes stored figures stale.
 */
function queriesDigest() {
  const hash = createHash('md5');
  for (const file of Object.values(PARTS)) hash.update(loadSqlQuery(file).text);
  for (const file of viewFiles()) hash.update(fs.readFileSync(`${VIEWS_DIR}${file}`, 'utf8'));
  return hash.digest('hex');
}

/** One run's rows of every part. @param {ReportData} data @param {number} runId @returns {ReportData} */
function splitByRun(data, runId) {
  return /** @type {ReportData} */ (
    Object.fromEntries(PART_NAMES.map((part) => [part, data[part].filter((row) => Number(row.run_id) === runId)]))
  );
}

/**
 * Keeps freshly computed figures for the next report. Not being able to (a read-only replica, a
 * role without INSERT) costs only time later, so it is logged, not thrown.
 * @param {import('pg').Pool} pool @param {Array<{ runId: number, mark: string, figures: ReportData }>} computed
 * @param {number} trim @param {import('pino').Logger} [log]
 */
async function storeFigures(pool, computed, trim, log) {
  if (computed.length === 0) return;
  try {
    await pool.query(
      `INSERT INTO run_report_figures (run_id, trim_fraction, data_mark, figures)
      SELECT run_id, $2, data_mark, figures
      FROM json_to_recordset($1::json) AS f(run_id bigint, data_mark text, figures json)
      ON CONFLICT (run_id, trim_fraction) DO UPDATE
        SET data_mark = excluded.data_mark, figures = excluded.figures, computed_at = now()`,
      [JSON.stringify(computed.map((c) => ({ run_id: c.runId, data_mark: c.mark, figures: c.figures }))), trim],
    );
  } catch (error) {
    log?.warn(
      { reason: /** @type {Error} */ (error).message },
      'report figures not stored; the next report computes them again',
    );
  }
}
