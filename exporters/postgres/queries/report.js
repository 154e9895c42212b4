// Loads what `paasmon report` compares by running the files of sql/queries/ (the same text a user
// pastes into psql): psql's :'name' variables become positional parameters.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/**
 * Everything the report shows for these runs, read in one snapshot (one REPEATABLE READ
 * transaction), so the figures of different queries agree. Rounds and the latency breakdown's means
 * come from run_comparison's rows (rounds.sql and latency_breakdown.sql give the same, and more,
 * in psql), so the run's requests are joined with the router records as few times as possible.
 * @param {import('pg').Pool} pool @param {number[]} runIds @param {{ trim: number }} options
 */
export async function loadReportData(pool, runIds, { trim }) {
  const variables = { runs: pgArray(runIds), trim };
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Sorts and hash joins of a million-request run stay in memory instead of spilling to disk.
    await client.query("SET LOCAL work_mem = '64MB'");
    const runs = await runSqlQuery(client, 'run_comparison', variables);
    const errors = await runSqlQuery(client, 'errors', variables);
    const instanceSeries = await runSqlQuery(client, 'instance_series', variables);
    const paths = await runSqlQuery(client, 'paths', variables);
    await client.query('COMMIT');
    return { runs, errors, instanceSeries, paths };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}
