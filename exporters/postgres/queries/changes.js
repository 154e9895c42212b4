// The history `paasmon changes` reads: the rows of the view run_history (sql/views/40_run_history.sql)
// of one label or one app, oldest first.

/**
 * @param {import('pg').Pool} pool @param {{ label?: string, app?: string }} selection
 * @returns {Promise<Array<{ run_id: number, label: string, started_at: string } & Record<string, any>>>}
 */
export async function loadRunHistory(pool, selection) {
  const { rows } = await pool.query(
    `SELECT * FROM run_history
    WHERE ($1::text IS NULL OR label = $1) AND ($2::text IS NULL OR app_name = $2)
    ORDER BY started_at, run_id`,
    [selection.label ?? null, selection.app ?? null],
  );
  return rows.map((row) => ({ ...row, run_id: Number(row.run_id), started_at: row.started_at.toISOString() }));
}
