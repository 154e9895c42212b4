// Correlation of load-generator records with router records, counted inside PostgreSQL.
// matched: both sides (a router record within an hour of the run, where router_record looks); loadgen_only: the router
// never logged it (or its log was not ingested);
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

// One run's counts in one pass: the run's requests and the requests of the runs overlapping it
// (the claimants) against the router records within an hour of the run (the hour router_record
// looks in), by one hash full join: matched pairs of the run's requests, and router records of the
// run's app inside its time that no claimant claims. A correlation id with two router records
// would count its request twice; the join's rows of the run beyond its requests show it, and the
// counts are then made with a semi-join and an anti-join (EXACT_COUNTS).
const ONE_PASS_COUNTS = `
  SELECT count(*) FILTER (WHERE l.run_id = $1 AND x.correlation_id IS NOT NULL)::int AS matched,
         count(*) FILTER (WHERE l.correlation_id IS NULL AND x.app_name = $2
                            AND x.received_at BETWEEN $3::timestamptz AND $4::timestamptz)::int AS router_only,
         count(*) FILTER (WHERE l.run_id = $1)::int AS run_rows
  FROM (SELECT run_id, correlation_id FROM loadgen_requests
        WHERE run_id = ANY ($5::bigint[]) AND started_at BETWEEN $6::timestamptz AND $7::timestamptz) l
  FULL JOIN (SELECT correlation_id, app_name, received_at FROM router_requests
             WHERE received_at BETWEEN $6::timestamptz AND $7::timestamptz) x
    ON x.correlation_id = l.correlation_id`;
const EXACT_COUNTS = `
  SELECT (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = $1
            AND EXISTS (SELECT 1 FROM router_requests x WHERE x.correlation_id = l.correlation_id
                          AND x.received_at BETWEEN $6::timestamptz AND $7::timestamptz))::int AS matched,
         (SELECT count(*) FROM router_requests x WHERE x.app_name = $2
            AND x.received_at >= $3::timestamptz AND x.received_at <= $4::timestamptz
            AND NOT EXISTS (SELECT 1 FROM loadgen_requests l WHERE l.run_id = ANY ($5::bigint[])
                              AND l.correlation_id = x.correlation_id
                              AND l.started_at BETWEEN $6::timestamptz AND $7::timestamptz))::int AS router_only`;

/**
 * @param {import('pg').Pool} pool @param {number} [runId]
 * @returns {Promise<Array<CorrelationCount>>}
 */
export async function correlationCounts(pool, runId) {
  // The runs first, then each run's counts in queries of their own: with the run's app, times and
  // claimants as values, the planner joins the request tables by hash (one scan of each side);
  // as columns of an outer query they were looked up row by row. Claimants: the runs overlapping
  // the run's time (5 minutes of slack for the clocks of load generator and router).
  const { rows: runs } = await pool.query(
    `
    WITH runs AS (
      SELECT t.id, t.label, t.app_name, t.started_at, t.meta->>'tool' AS tool, sp.first_started_at, sp.last_started_at,
             coalesce(t.ended_at, (SELECT max(started_at + duration_ms * interval '1 millisecond')
                                   FROM loadgen_requests l WHERE l.run_id = t.id
                                     AND l.started_at BETWEEN sp.first_started_at AND sp.last_started_at)) AS ended_at
      FROM test_runs t CROSS JOIN LATERAL loadgen_span(t.id) sp WHERE $1::bigint IS NULL OR t.id = $1
    )
    SELECT r.id AS run_id, r.label, r.tool, r.app_name, r.started_at::text AS started_at, r.ended_at::text AS ended_at,
           ARRAY(SELECT o.id FROM test_runs o
                 WHERE o.started_at <= r.ended_at + interval '5 minutes'
                   AND coalesce(o.ended_at, 'infinity') >= r.started_at - interval '5 minutes')::text AS run_ids,
           (least(r.started_at, r.first_started_at) - interval '1 hour')::text AS near_from,
           (greatest(r.ended_at, r.last_started_at) + interval '1 hour')::text AS near_to
    FROM runs r ORDER BY r.id`,
    [runId ?? null],
  );
  /** @type {CorrelationCount[]} */
  const counts = [];
  for (const run of runs) {
    const {
      rows: [own],
    } = await pool.query(
      `SELECT count(*)::int AS requests,
              (count(*) FILTER (WHERE tool IS NOT NULL AND correlation_id LIKE 'row-%'))::int AS without_ids
      FROM loadgen_requests WHERE run_id = $1`,
      [run.run_id],
    );
    const params = [run.run_id, run.app_name, run.started_at, run.ended_at, run.run_ids, run.near_from, run.near_to];
    let {
      rows: [pass],
    } = await pool.query(ONE_PASS_COUNTS, params);
    if (pass.run_rows > own.requests) [pass] = (await pool.query(EXACT_COUNTS, params)).rows;
    const { run_id: id, label, tool } = run;
    counts.push({
      run_id: Number(id),
      label,
      tool,
      requests: own.requests,
      without_ids: own.without_ids,
      matched: pass.matched,
      router_only: pass.router_only,
      loadgen_only: own.requests - pass.matched,
    });
  }
  return counts;
}
