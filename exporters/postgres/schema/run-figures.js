// A run's figures kept for its readers (table run_figures; the rules are sql/views/25_run_figures.sql,
// the design docs/architecture.md, "A run's figures"): written by the commands that change a run's
// data, never by a reader.

/** The database's time now: where a writer's marks start (run_figures.written_at). @param {import('pg').Pool} pool */
export async function databaseNow(pool) {
  const { rows } = await pool.query('SELECT clock_timestamp() AS now');
  return /** @type {Date} */ (rows[0].now);
}

/**
 * Computes and stores the figures of these runs, if they have ended, over the whole run, the
 * steady windows of `trims` and those stored already; a run whose figures are current and hold
 * those trims is left as it is.
 * @param {import('pg').Pool} pool @param {number[]} runIds @param {number[]} trims
 * @param {{ ended?: boolean }} [options] ended: only runs that have ended (the default); false: any run
 * @returns {Promise<number[]>} the runs whose figures were computed now
 */
export async function refreshRunFigures(pool, runIds, trims, { ended = true } = {}) {
  /** @type {number[]} */
  const refreshed = [];
  const trimsArray = `{${trims.join(',')}}`;
  // Those with something to do, in one query: a prune's hundred current runs cost no analyze each.
  const { rows: due } = await pool.query(
    `SELECT t.id FROM test_runs t
     WHERE t.id = ANY ($1::bigint[]) AND ($3 OR t.ended_at IS NOT NULL) AND NOT run_figures_current(t.id, $2)`,
    [`{${runIds.join(',')}}`, trimsArray, !ended],
  );
  // One transaction each: a run's row stays locked only while its own figures are computed, and
  // the partitions analyzed first only while they are.
  const dueIds = new Set(due.map((row) => Number(row.id)));
  for (const runId of runIds.filter((id) => dueIds.has(id))) {
    await pool.query('SELECT run_figures_analyze($1)', [runId]);
    const { rows } = await pool.query('SELECT refresh_run_figures($1, $2::double precision[]) AS refreshed', [
      runId,
      trimsArray,
    ]);
    if (rows[0]?.refreshed) refreshed.push(runId);
  }
  return refreshed;
}

/**
 * The ended runs whose figures are stale and that have had no write noted for `quietMs` (and, with
 * `since`, one noted since then), newest run first, at most `limit`: what the upkeep refreshes next.
 * @param {import('pg').Pool} pool @param {{ quietMs: number, limit: number, since?: Date }} options
 * @returns {Promise<number[]>}
 */
export async function staleRuns(pool, { quietMs, limit, since }) {
  const { rows } = await pool.query(
    `SELECT f.run_id FROM run_figures f JOIN test_runs t ON t.id = f.run_id
     WHERE f.stale AND t.ended_at IS NOT NULL AND f.written_at <= now() - $1 * interval '1 millisecond'
       AND ($3::timestamptz IS NULL OR f.written_at >= $3)
       AND NOT EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = f.run_id)
     ORDER BY f.run_id DESC LIMIT $2`,
    [quietMs, limit, since?.toISOString() ?? null],
  );
  return rows.map((row) => Number(row.run_id));
}
