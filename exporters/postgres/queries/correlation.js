// Correlation of load-generator records with router records, counted inside PostgreSQL.
// matched: both sides; loadgen_only: the router never logged it (or its log was not ingested);
// router_only: a router record of the run's app inside the run's time that no load-generator
// record claims (other traffic, or a request whose record was lost).

/**
 * Counts of the runs ended within `hours`, or still open and started within a day (a run whose
 * load generator died is never ended), for the collector's metrics.
 * @param {import('pg').Pool} pool @param {number} hours
 */
export async function recentCorrelationCounts(pool, hours) {
  const { rows } = await pool.query(
    `SELECT id FROM test_runs
    WHERE ended_at > now() - $1 * interval '1 hour' OR (ended_at IS NULL AND started_at > now() - interval '1 day')`,
    [hours],
  );
  const counts = [];
  for (const { id } of rows) counts.push(...(await correlationCounts(pool, Number(id))));
  return counts;
}

/**
 * @typedef {object} CorrelationCount
 * @property {number} run_id
 * @property {string} label
 * @property {number} requests
 * @property {number} matched
 * @property {number} loadgen_only
 * @property {number} router_only
 * @property {string | null} tool the load tool an import named (test_runs.meta.tool); null for paasmon's own
 * @property {number} without_ids requests whose tool recorded no correlation id (a key derived from the file)
 */

/**
 * @param {import('pg').Pool} pool @param {number} [runId]
 * @returns {Promise<Array<CorrelationCount>>}
 */
export async function correlationCounts(pool, runId) {
  // router_only looks the router records of the run up by app and time, and their claim among the
  // load-generator requests of the runs overlapping that time (5 minutes of slack for the clocks
  // of load generator and router), by the primary key (run_id, correlation_id): a cost in
  // proportion to the run, where a lookup by correlation id alone read every run's requests.
  const { rows } = await pool.query(
    `
    WITH runs AS (
      SELECT t.id, t.label, t.app_name, t.started_at, t.meta->>'tool' AS tool,
             coalesce(t.ended_at, (SELECT max(started_at + duration_ms * interval '1 millisecond')
                                   FROM loadgen_requests l WHERE l.run_id = t.id)) AS ended_at
      FROM test_runs t WHERE $1::bigint IS NULL OR t.id = $1
    ), claimants AS (
      SELECT r.*, ARRAY(SELECT o.id FROM test_runs o
                        WHERE o.started_at <= r.ended_at + interval '5 minutes'
                          AND coalesce(o.ended_at, 'infinity') >= r.started_at - interval '5 minutes') AS run_ids
      FROM runs r
    )
    SELECT r.id AS run_id, r.label, r.tool,
      (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = r.id)::int AS requests,
      (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = r.id AND l.tool IS NOT NULL
         AND l.correlation_id LIKE 'row-%')::int AS without_ids,
      (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = r.id
         AND EXISTS (SELECT 1 FROM router_requests x WHERE x.correlation_id = l.correlation_id))::int AS matched,
      (SELECT count(*) FROM router_requests x WHERE x.app_name = r.app_name
         AND x.received_at >= r.started_at AND x.received_at <= r.ended_at
         AND NOT EXISTS (SELECT 1 FROM loadgen_requests l
                         WHERE l.run_id = ANY (r.run_ids) AND l.correlation_id = x.correlation_id))::int AS router_only
    FROM claimants r ORDER BY r.id`,
    [runId ?? null],
  );
  return rows.map((row) => ({ ...row, run_id: Number(row.run_id), loadgen_only: row.requests - row.matched }));
}
