-- The planner's estimate of the router records received in [from_ts, to_ts], from each partition's
-- statistics (the histogram of received_at): records crowded in a busy hour count in full, where a
-- share of their day in proportion to time would miss them. VOLATILE: EXPLAIN is refused in a
-- function that is not.
CREATE OR REPLACE FUNCTION router_rows_between(from_ts timestamptz, to_ts timestamptz)
RETURNS double precision LANGUAGE plpgsql VOLATILE AS $function$
DECLARE
  plan json;
BEGIN
  EXECUTE format('EXPLAIN (FORMAT JSON) SELECT FROM router_requests x WHERE x.received_at BETWEEN %L AND %L',
                 from_ts, to_ts)
    INTO plan;
  RETURN coalesce((plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision, 0);
END
$function$;

-- The load-generator figures of one run's requests sent in [from_ts, to_ts], each request with its
-- router record (router_record: the router's first record of its correlation id; NULL when the
-- router did not log it; ordered-set aggregates skip NULLs), in one pass over the run's rows.
-- e2e_pct: p50, p90, p95, p99 of duration_ms; router_pct: p50, p95, p99 of response_time_ms
-- (percentile_cont). errors: no response (status 0) or a 5xx; successful: status 1..499.
-- known_requests: the run's count of requests when the caller has it (else counted here).
-- With breakdowns, the same pass also gives, as JSON arrays of rows, what sql/queries/errors.sql
-- and sql/queries/paths.sql give for the window (same columns, same order); else they are NULL.
-- A run of many requests against the router records joins them by hash on the correlation id (one
-- scan of each side) rather than one index lookup per request; a run small beside the router
-- records near it (fewer requests than a twentieth of those within an hour of its span, by the
-- statistics) looks each request's record up (router_record), a cost in proportion to the run.
-- When a correlation id has a second router record (an app that forwarded the header on a call of
-- its own) the hash join counts the request twice, which the count of joined rows against the
-- window's requests shows (a count of the run's rows in the window, or known_requests when the
-- window is the whole run):
-- the pass is then made again with the lookups. Only the window's requests are joined, so no
-- figure needs a per-row condition of its own. With breakdowns, the joined rows are kept (a CTE
-- read three times) instead of joined three times. The paths' p95 sorts each of the 20 busiest
-- paths' times alone, gathered by a hash aggregate: an ordered-set aggregate per path would sort
-- every joined row by path first (a comparison of texts per step), the dearer the more paths.
-- A window of one path (a test of one endpoint) has the router's p95 as its path's, sorted once.
CREATE OR REPLACE FUNCTION run_request_figures(
  run bigint, from_ts timestamptz DEFAULT '-infinity', to_ts timestamptz DEFAULT 'infinity',
  breakdowns boolean DEFAULT false, known_requests bigint DEFAULT NULL)
RETURNS TABLE (
  requests bigint, successful bigint, errors bigint, timeouts bigint, first_sent timestamptz, last_done timestamptz,
  e2e_mean_ms double precision, e2e_pct double precision[], e2e_max_ms double precision,
  e2e_stddev_ms double precision, router_records bigint, router_mean_ms double precision,
  router_pct double precision[], gorouter_mean_ms double precision, outside_router_mean_ms double precision,
  behind_router_mean_ms double precision, error_rows json, path_rows json
)
LANGUAGE plpgsql STABLE
-- A million-request run's hash join, rows and sorts in memory rather than in temporary files.
SET work_mem = '128MB'
-- The percentiles cannot be computed in parts, so a parallel plan hands every joined row to one
-- process; at the default cost of that hand-over the planner never joins in parallel.
SET parallel_tuple_cost = 0.01
-- Set per pass below; here so that it is given back when the function returns.
SET enable_nestloop = on
AS $function$
DECLARE
  -- %1$s: the join of the router records; %2$s: the breakdowns, or NULLs; %3$s: the check that no
  -- request of the window was joined twice.
  pass CONSTANT text := $sql$
    WITH j AS (
      SELECT l.started_at, l.duration_ms, l.status, l.error, x.correlation_id IS NOT NULL AS matched, x.path,
             x.response_time_ms, x.gorouter_time_ms
      FROM loadgen_requests l %1$s
      WHERE l.run_id = $1 AND l.started_at BETWEEN $4 AND $5 AND l.started_at BETWEEN $2 AND $3
    ), f AS (
      SELECT count(*) AS requests,
             count(*) FILTER (WHERE status BETWEEN 1 AND 499) AS successful,
             count(*) FILTER (WHERE status = 0 OR status >= 500) AS errors,
             count(*) FILTER (WHERE error = 'timeout') AS timeouts,
             min(started_at) AS first_sent,
             max(started_at + duration_ms * interval '1 millisecond') AS last_done,
             avg(duration_ms) AS e2e_mean_ms,
             percentile_cont(ARRAY[0.50, 0.90, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms)
               AS e2e_pct,
             max(duration_ms) AS e2e_max_ms,
             stddev_samp(duration_ms) AS e2e_stddev_ms,
             count(response_time_ms) AS router_records,
             avg(response_time_ms) AS router_mean_ms,
             percentile_cont(ARRAY[0.50, 0.95, 0.99]) WITHIN GROUP (ORDER BY response_time_ms)
               AS router_pct,
             avg(gorouter_time_ms) AS gorouter_mean_ms,
             avg(duration_ms - response_time_ms) AS outside_router_mean_ms,
             avg(response_time_ms - gorouter_time_ms) AS behind_router_mean_ms
      FROM j
    )
    SELECT f.requests, f.successful, f.errors, f.timeouts, f.first_sent, f.last_done, f.e2e_mean_ms, f.e2e_pct,
           f.e2e_max_ms, f.e2e_stddev_ms, f.router_records, f.router_mean_ms, f.router_pct, f.gorouter_mean_ms,
           f.outside_router_mean_ms, f.behind_router_mean_ms, %2$s
    FROM f WHERE %3$s
  $sql$;
  breakdown CONSTANT text := $sql$
    (SELECT coalesce(json_agg(json_build_object('run_id', $1, 'outcome', e.outcome, 'status', e.status,
                                                'error', e.error, 'requests', e.requests,
                                                'ratio', e.requests::double precision / f.requests)
                              ORDER BY e.requests DESC, e.outcome), '[]')
     FROM (SELECT CASE WHEN status = 0 THEN 'error:' || coalesce(error, 'unknown') ELSE 'status:' || status END
                    AS outcome, status, error, count(*) AS requests
           FROM j WHERE status = 0 OR status >= 500 GROUP BY status, error) e),
    (SELECT coalesce(json_agg(json_build_object('run_id', $1, 'path', p.path, 'requests', p.requests,
                                                'response_time_mean_ms', p.mean, 'response_time_p95_ms',
                                                CASE WHEN p.paths = 1 THEN f.router_pct[2]
                                                     ELSE (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY t)
                                                           FROM unnest(p.times) t) END)
                              ORDER BY p.requests DESC, p.path), '[]')
     FROM (SELECT path, count(*) AS requests, avg(response_time_ms) AS mean, array_agg(response_time_ms) AS times,
                  row_number() OVER (ORDER BY count(*) DESC, path) AS busiest, count(*) OVER () AS paths
           FROM j WHERE matched GROUP BY path) p
     WHERE p.busiest <= 20)
  $sql$;
  lookup CONSTANT text := 'LEFT JOIN LATERAL router_record(l.correlation_id, l.started_at) x ON true';
  -- router_record's hour around each request, and the run's span widened by it for partition pruning.
  -- The hour is written so that no index serves it: a plan from missing statistics (a partition not
  -- analyzed yet) then still finds each record by its id, never by a scan of the hour's records.
  hash_join CONSTANT text := $sql$
    LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id
      AND x.received_at - l.started_at BETWEEN interval '-1 hour' AND interval '1 hour'
      AND x.received_at BETWEEN $7 AND $8
  $sql$;
  span_first timestamptz;
  span_last timestamptz;
  run_requests bigint := known_requests;
  router_rows double precision;
  returned bigint;
  counted bigint;
  by_lookup boolean;
BEGIN
  SELECT sp.first_started_at, sp.last_started_at INTO span_first, span_last FROM loadgen_span(run) sp;
  -- The router records the hash join would read (router_rows_between): those within an hour of
  -- the run's span. Records of other days or hours cost the join nothing.
  router_rows := router_rows_between(span_first - interval '1 hour', span_last + interval '1 hour');
  -- A run small beside the router records is looked up request by request. Not told its count, the
  -- function counts only as far as that threshold here (an INTO query never runs in parallel), and
  -- the whole count, when needed, is a subquery of the pass.
  IF run_requests IS NULL THEN
    SELECT count(*) INTO counted FROM (
      SELECT FROM loadgen_requests l WHERE l.run_id = run AND l.started_at BETWEEN span_first AND span_last
      LIMIT ceil(router_rows / 20)::bigint) s;
  END IF;
  by_lookup := coalesce(run_requests, counted) * 20 < router_rows;
  -- The hash pass joins by hash whatever the statistics say. Without a partitioned table's own
  -- statistics (autovacuum never gathers them) the planner takes each request to match 1/200 of
  -- the router records and looks every one up instead: 2-3 x slower on a run just imported.
  PERFORM set_config('enable_nestloop', (by_lookup IS TRUE)::text, true);
  -- RETURN QUERY rather than EXECUTE ... INTO: a query run for INTO never gets parallel workers.
  -- The hash pass returns no row when some request has two router records (joined rows beyond
  -- the window's requests): only the first counts, so the pass is then made with the lookups.
  RETURN QUERY EXECUTE format(pass, CASE WHEN by_lookup THEN lookup ELSE hash_join END,
                              CASE WHEN breakdowns THEN breakdown ELSE 'NULL::json, NULL::json' END,
                              CASE WHEN by_lookup THEN 'true'
                                   WHEN run_requests IS NOT NULL AND from_ts = '-infinity' AND to_ts = 'infinity'
                                     THEN 'f.requests <= $6'
                                   ELSE 'f.requests <= (SELECT count(*) FROM loadgen_requests l WHERE l.run_id = $1
                                                        AND l.started_at BETWEEN $4 AND $5
                                                        AND l.started_at BETWEEN $2 AND $3)' END)
    USING run, from_ts, to_ts, span_first, span_last, run_requests, span_first - interval '1 hour',
          span_last + interval '1 hour';
  GET DIAGNOSTICS returned = ROW_COUNT;
  IF returned = 0 THEN
    PERFORM set_config('enable_nestloop', 'on', true);
    RETURN QUERY EXECUTE format(pass, lookup, CASE WHEN breakdowns THEN breakdown ELSE 'NULL::json, NULL::json' END,
                                'true')
      USING run, from_ts, to_ts, span_first, span_last, run_requests, span_first - interval '1 hour',
            span_last + interval '1 hour';
  END IF;
END
$function$;
