-- The one place that reads partition bounds: each partition of these range-partitioned tables with
-- the bounds of its FOR VALUES clause (NULLs for the default partition), from the catalog alone
-- (no partition is read or sized). pg_get_expr writes each bound with its offset, so the text
-- casts back to the same instant whatever the session's time zone.
CREATE OR REPLACE FUNCTION paasmon_partition_bounds(parents regclass[])
RETURNS TABLE (parent regclass, partition regclass, from_ts timestamptz, to_ts timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT i.inhparent::regclass, c.oid::regclass, m[1]::timestamptz, m[2]::timestamptz
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  LEFT JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                 'FROM \(''([^'']+)''\) TO \(''([^'']+)''\)') m ON true
  WHERE i.inhparent = ANY (parents)
$$;

-- Every day partition of the three tables with its bounds (the default partition is not listed),
-- as migration 012 defined it, its bounds from paasmon_partition_bounds.
CREATE OR REPLACE FUNCTION paasmon_partitions()
RETURNS TABLE (parent text, partition text, from_ts timestamptz, to_ts timestamptz, bytes bigint)
LANGUAGE sql STABLE SET TimeZone = 'UTC' AS $$
  SELECT p.relname::text, c.relname::text, b.from_ts, b.to_ts, pg_total_relation_size(c.oid)
  FROM paasmon_partition_bounds(ARRAY['router_requests', 'loadgen_requests', 'instance_samples']::regclass[]) b
  JOIN pg_class p ON p.oid = b.parent
  JOIN pg_class c ON c.oid = b.partition
  WHERE b.from_ts IS NOT NULL
$$;
