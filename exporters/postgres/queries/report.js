// Loads what `paasmon report` compares by running the files of sql/queries/ (the same text a user
// pastes into psql): psql's :'name' variables become positional parameters.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withClient } from '../client.js';
import { onSharedSnapshot } from './shared-snapshot.js';
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
 * Everything the report shows for these runs, read in one snapshot (one REPEATABLE READ READ ONLY
 * transaction, shared by up to REPORT_CONNECTIONS connections), so the figures of different parts
 * agree. Each run's data is its stored figures while current (run_figures_read), else computed now
 * in one pass over its requests joined with their router records; nothing is written. Rounds and
 * the latency breakdown's means come from run_comparison's rows (rounds.sql and
 * latency_breakdown.sql give the same, and more, in psql).
 * @param {import('pg').Pool} pool @param {number[]} runIds
 * @param {{ trim: number, recompute?: boolean }} options recompute: not the stored figures (but a
 *   pruned run's, which are all it has)
 * @returns {Promise<ReportData & { stored: number[] }>} stored: the runs whose figures were read back
 */
export async function loadReportData(pool, runIds, { trim, recompute = false }) {
  /** @type {Map<number, ReportData>} */
  const byRun = new Map();
  /** @type {number[]} */
  const stored = [];
  // A failure discards the connection, and with it the read-only transaction.
  await withClient(pool, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(WORK_MEM);
    const queue = [...runIds];
    const connections = Math.min(queue.length, REPORT_CONNECTIONS);
    await onSharedSnapshot(pool, client, connections - 1, async (worker) => {
      if (worker !== client) await worker.query(WORK_MEM);
      for (let runId = queue.shift(); runId !== undefined; runId = queue.shift()) {
        const { rows } = await worker.query('SELECT data::text AS data, stored FROM run_figures_read($1, $2, $3)', [
          runId,
          trim,
          recompute,
        ]);
        byRun.set(runId, JSON.parse(rows[0].data));
        if (rows[0].stored) stored.push(runId);
      }
    });
    await client.query('COMMIT');
  });
  const ordered = [...runIds].sort((a, b) => a - b).map((id) => /** @type {ReportData} */ (byRun.get(id)));
  /** @type {ReportData} */
  const data = { runs: [], errors: [], instanceSeries: [], paths: [] };
  for (const figures of ordered) {
    for (const part of PART_NAMES) data[part].push(...figures[part]);
  }
  return { ...data, stored: stored.sort((a, b) => a - b) };
}
