-- Up Migration
-- run_summary gains gorouter_mean_ms (the router's own mean, already in each run's stored figures,
-- run_figures) and run_history gorouter_mean_ms and behind_router_mean_ms (sql/views/30, 40). The
-- function behind run_summary returns a column more, which only a new function can: run_summary
-- stands on its placeholder meanwhile (019), so its grants stay, and the view files create it again.
SELECT paasmon_hold_run_summary();
DROP FUNCTION IF EXISTS run_summary_request_figures(bigint);

-- Down Migration
-- run_summary and run_history without the columns 022 added, so that the view files before it
-- apply again: a view loses columns only by being made anew, so each becomes a placeholder of its
-- other columns (NULLs, as 019's), with the grants it had, and the function the new files made goes.
DO $$
DECLARE
  v text;
  placeholders text[] := '{}';
  grants text[] := '{}';
  statement text;
BEGIN
  FOREACH v IN ARRAY ARRAY['run_history', 'run_summary'] LOOP
    CONTINUE WHEN to_regclass(v) IS NULL;
    placeholders := placeholders || (
      SELECT format('CREATE VIEW %I AS SELECT ', v)
             || string_agg(format('NULL::%s AS %I', format_type(a.atttypid, a.atttypmod), a.attname), ', '
                           ORDER BY a.attnum)
      FROM pg_attribute a
      WHERE a.attrelid = v::regclass AND a.attnum > 0 AND NOT a.attisdropped
        AND a.attname NOT IN ('gorouter_mean_ms', 'behind_router_mean_ms'));
    grants := grants || ARRAY(
      SELECT format('GRANT %s ON %I TO %s', g.privilege_type, v,
                    CASE WHEN g.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(g.grantee)) END)
      FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) g
      WHERE c.oid = v::regclass AND g.grantee <> c.relowner);
  END LOOP;
  DROP VIEW IF EXISTS run_history;
  DROP VIEW IF EXISTS run_summary;
  -- run_summary first: the old run_history reads it.
  FOREACH statement IN ARRAY ARRAY(SELECT p FROM unnest(placeholders) WITH ORDINALITY u (p, n) ORDER BY n DESC)
                             || grants LOOP
    EXECUTE statement;
  END LOOP;
END $$;
DROP FUNCTION IF EXISTS run_summary_request_figures(bigint);
