-- A run's figures (table run_figures, migration 019): the one place of their rules. How they fit
-- together is docs/architecture.md, "A run's figures".

-- The time whose raw rows a run's figures are computed from: the run's own span, widened by the
-- hour around each request in which its router record is looked for.
CREATE OR REPLACE FUNCTION run_figures_window(t test_runs)
RETURNS tstzrange LANGUAGE sql STABLE AS $$
  SELECT tstzrange(t.started_at - interval '1 hour', coalesce(t.ended_at, 'infinity') + interval '1 hour', '[]')
$$;

-- A write of raw rows from first_ts to last_ts (NULL: any time) marks the figures of the runs whose
-- window it meets. Always an UPDATE, so the row stays locked until the writer commits and a refresh
-- of the run waits for it (refresh_run_figures); in the order of the ids, so writers never wait in
-- a circle. A pruned run's figures are all it has and stay as they are.
CREATE OR REPLACE FUNCTION run_figures_written(first_ts timestamptz, last_ts timestamptz)
RETURNS void LANGUAGE sql AS $$
  UPDATE run_figures f SET stale = true, written_at = now()
  WHERE f.run_id IN (
    SELECT g.run_id FROM run_figures g JOIN test_runs t ON t.id = g.run_id
    WHERE (first_ts IS NULL OR last_ts IS NULL OR run_figures_window(t) && tstzrange(first_ts, last_ts, '[]'))
      AND NOT EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = g.run_id)
    ORDER BY g.run_id FOR UPDATE OF g)
$$;

-- What `paasmon report` shows of one run over the steady window of trim_fraction, as JSON: runs
-- (its run_comparison row), errors, instanceSeries and paths (the rows of those sql/queries files),
-- from one pass over its requests (run_report_parts). The same text whether stored or computed now;
-- TimeZone pinned so its times read the same in every session.
CREATE OR REPLACE FUNCTION run_report_data(run bigint, trim_fraction double precision)
RETURNS json LANGUAGE sql STABLE SET TimeZone = 'UTC' AS $$
  SELECT json_build_object(
           'runs', json_build_array((SELECT json_object_agg(e.key, e.value ORDER BY e.n)
                                     FROM json_each(row_to_json(p)) WITH ORDINALITY e (key, value, n)
                                     WHERE e.key NOT IN ('error_rows', 'path_rows', 'instance_rows'))),
           'errors', p.error_rows, 'instanceSeries', p.instance_rows, 'paths', p.path_rows)
  FROM run_report_parts(ARRAY[run], trim_fraction) p
$$;

-- Fresh statistics for the day partitions of a run's window that were never analyzed or grew since
-- (a bulk write's rows): a plan from missing statistics joins a big run row by row. A role that
-- may not analyze a table is warned and skipped, not refused.
CREATE OR REPLACE FUNCTION run_figures_analyze(run bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  part regclass;
BEGIN
  FOR part IN
    SELECT b.partition
    FROM test_runs t
    CROSS JOIN paasmon_partition_bounds(ARRAY['router_requests', 'loadgen_requests', 'instance_samples']::regclass[]) b
    JOIN pg_class c ON c.oid = b.partition
    WHERE t.id = run
      AND b.from_ts IS NOT NULL AND tstzrange(b.from_ts, b.to_ts) && run_figures_window(t)
      AND (c.reltuples < 0
           OR pg_relation_size(c.oid) > 1.1 * c.relpages * current_setting('block_size')::bigint + 1048576)
  LOOP
    EXECUTE format('ANALYZE %s', part);
  END LOOP;
END $$;

-- Whether refresh_run_figures has nothing to do for a run: it has no figures row, its raw rows were
-- pruned (what is stored is all it has), or its figures are current and hold the whole run (trim 0)
-- and these trims.
CREATE OR REPLACE FUNCTION run_figures_current(run bigint, trims double precision[] DEFAULT '{}')
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT NOT f.stale
                          AND ARRAY[0::double precision] || trims
                              <@ ARRAY(SELECT (e ->> 'trim')::double precision FROM json_array_elements(f.figures) e)
                   FROM run_figures f WHERE f.run_id = run), true)
         OR EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = run)
$$;

-- Computes and stores a run's figures: over the whole run (trim 0, run_summary's), the trims
-- asked for and those stored already. The run's row is locked first, so the computation sees
-- every write whose writer marked the run before, and a writer marking it after waits and marks
-- it stale again. Nothing to do (false) when run_figures_current.
CREATE OR REPLACE FUNCTION refresh_run_figures(run bigint, trims double precision[] DEFAULT '{}')
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  kept run_figures;
  wanted double precision[];
  computed json;
BEGIN
  SELECT * INTO kept FROM run_figures f WHERE f.run_id = run FOR UPDATE;
  IF NOT FOUND OR run_figures_current(run, trims) THEN
    RETURN false;
  END IF;
  wanted := ARRAY(SELECT DISTINCT x
                  FROM (SELECT unnest(ARRAY[0::double precision] || trims)
                        UNION ALL
                        SELECT (e ->> 'trim')::double precision FROM json_array_elements(kept.figures) e) u (x)
                  ORDER BY x);
  PERFORM run_figures_analyze(run);
  SELECT json_agg(json_build_object('trim', x, 'data', run_report_data(run, x)) ORDER BY x) INTO computed
  FROM unnest(wanted) x;
  UPDATE run_figures f SET figures = computed, computed_at = now(), stale = false WHERE f.run_id = run;
  RETURN true;
END $$;

-- A run's stored data of the report over the steady window of trim_fraction, while current or
-- when the run was pruned (what is stored is then all it has); else NULL.
CREATE OR REPLACE FUNCTION run_figures_stored(run bigint, trim_fraction double precision)
RETURNS json LANGUAGE sql STABLE AS $$
  SELECT e -> 'data'
  FROM run_figures f CROSS JOIN LATERAL json_array_elements(f.figures) e
  WHERE f.run_id = run AND (e ->> 'trim')::double precision = trim_fraction
    AND (NOT f.stale OR EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = run))
  LIMIT 1
$$;

-- The report's data of a run over the steady window of trim_fraction, and whether it is the stored
-- one: stored when there is one (run_figures_stored) and not `recompute` (a pruned run's always),
-- else computed now. Reads only: a read-only role or transaction gets the same answer.
CREATE OR REPLACE FUNCTION run_figures_read(run bigint, trim_fraction double precision,
                                            recompute boolean DEFAULT false)
RETURNS TABLE (data json, stored boolean) LANGUAGE plpgsql STABLE AS $$
BEGIN
  data := CASE WHEN NOT recompute OR EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = run)
               THEN run_figures_stored(run, trim_fraction) END;
  stored := data IS NOT NULL;
  IF NOT stored THEN
    data := run_report_data(run, trim_fraction);
  END IF;
  RETURN NEXT;
END $$;
