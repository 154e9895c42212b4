-- Up Migration
-- router_requests, loadgen_requests and instance_samples partitioned by time (declarative range
-- partitioning, no extension): one partition per UTC day of received_at / started_at / ts, named
-- <table>_pYYYYMMDD, plus a default partition <table>_default that takes any row outside them, so a
-- row is never refused (a direct INSERT, a row of a day no writer announced). The writers create the
-- partitions of each page's days before its COPY (exporters/postgres/partitions.js); migrate and
-- collect create the coming days ahead; paasmon_settle_partitions() moves what reached the default
-- partition into partitions of its own. Retention drops whole partitions (paasmon prune).
-- Every row moves into its partition here: a rewrite of the three tables under their locks.
-- Unique keys include the partition key: loadgen_requests' key becomes (run_id, correlation_id,
-- started_at); a request read again carries the same start, so re-reading still never duplicates.

-- The partition of `parent` for the UTC day of `ts`, created and attached when missing (a
-- standalone table attached afterwards: ATTACH takes a lock that lets writers of other partitions
-- go on, where CREATE TABLE ... PARTITION OF would wait for every writer of the table). Rows of
-- that day already in the default partition move into it. Under an advisory lock per table, so
-- several writers create each partition once. Returns the partition's name.
CREATE OR REPLACE FUNCTION paasmon_ensure_partition(parent regclass, ts timestamptz)
RETURNS text LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  day_start timestamptz := date_trunc('day', ts);
  base text := (SELECT c.relname FROM pg_class c WHERE c.oid = parent);
  part text := base || '_p' || to_char(date_trunc('day', ts), 'YYYYMMDD');
  key text := (SELECT a.attname FROM pg_partitioned_table p
               JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
               WHERE p.partrelid = parent);
  moved bigint;
BEGIN
  IF ts IS NULL OR NOT isfinite(ts) THEN RETURN base || '_default'; END IF;
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN RETURN part; END IF;
  PERFORM pg_advisory_xact_lock(hashtext('paasmon partitions'), parent::oid::integer);
  IF to_regclass(quote_ident(part)) IS NOT NULL THEN RETURN part; END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, base);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %L AND %I < %L)', part, part || '_range',
                 key, day_start, key, day_start + interval '1 day');
  IF to_regclass(quote_ident(base || '_default')) IS NOT NULL THEN
    EXECUTE format('WITH gone AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) INSERT INTO %I SELECT * FROM gone',
                   base || '_default', key, day_start, key, day_start + interval '1 day', part);
    GET DIAGNOSTICS moved = ROW_COUNT;
  END IF;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', base, part,
                 day_start, day_start + interval '1 day');
  -- The CHECK spared ATTACH its scan; the partition bound says the same from now on.
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
  RETURN part;
END $$;

-- The partitions of the three tables for every day from `from_ts` to `to_ts` (both included).
CREATE OR REPLACE FUNCTION paasmon_ensure_partitions(from_ts timestamptz, to_ts timestamptz)
RETURNS integer LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  day timestamptz;
  made integer := 0;
  parent text;
BEGIN
  FOR day IN SELECT generate_series(date_trunc('day', from_ts), date_trunc('day', to_ts), interval '1 day') LOOP
    FOREACH parent IN ARRAY ARRAY['router_requests', 'loadgen_requests', 'instance_samples'] LOOP
      IF to_regclass(quote_ident(parent || '_p' || to_char(day, 'YYYYMMDD'))) IS NULL THEN
        PERFORM paasmon_ensure_partition(parent::regclass, day);
        made := made + 1;
      END IF;
    END LOOP;
  END LOOP;
  RETURN made;
END $$;

-- Every day partition of the three tables with its bounds (the default partition is not listed).
CREATE OR REPLACE FUNCTION paasmon_partitions()
RETURNS TABLE (parent text, partition text, from_ts timestamptz, to_ts timestamptz, bytes bigint)
LANGUAGE sql STABLE SET TimeZone = 'UTC' AS $$
  SELECT p.relname::text, c.relname::text,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\) TO'))[1]::timestamptz,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz,
         pg_total_relation_size(c.oid)
  FROM pg_inherits i
  JOIN pg_class p ON p.oid = i.inhparent
  JOIN pg_class c ON c.oid = i.inhrelid
  WHERE p.relname IN ('router_requests', 'loadgen_requests', 'instance_samples')
    AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
$$;

-- Moves the rows of the default partitions into day partitions of their own (created here).
-- Returns how many days got a partition.
CREATE OR REPLACE FUNCTION paasmon_settle_partitions()
RETURNS integer LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  parent text;
  key text;
  day timestamptz;
  made integer := 0;
BEGIN
  FOREACH parent IN ARRAY ARRAY['router_requests', 'loadgen_requests', 'instance_samples'] LOOP
    key := CASE parent WHEN 'router_requests' THEN 'received_at' WHEN 'loadgen_requests' THEN 'started_at' ELSE 'ts' END;
    FOR day IN EXECUTE format('SELECT DISTINCT date_trunc(''day'', %I) FROM %I WHERE isfinite(%I)',
                              key, parent || '_default', key) LOOP
      PERFORM paasmon_ensure_partition(parent::regclass, day);
      made := made + 1;
    END LOOP;
  END LOOP;
  RETURN made;
END $$;

-- Drops day partitions by name (paasmon prune); any other name is left alone. Returns how many went.
CREATE OR REPLACE FUNCTION paasmon_drop_partitions(names text[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  name text;
  dropped integer := 0;
BEGIN
  FOREACH name IN ARRAY names LOOP
    IF name ~ '^(router_requests|loadgen_requests|instance_samples)_p[0-9]{8}$'
       AND to_regclass(quote_ident(name)) IS NOT NULL THEN
      EXECUTE format('DROP TABLE %I', name);
      dropped := dropped + 1;
    END IF;
  END LOOP;
  RETURN dropped;
END $$;

-- These views and this function depend on the tables (router_record returns their row type):
-- they go, and sql/views brings them back after the migrations.
DROP VIEW IF EXISTS run_summary;
DROP VIEW IF EXISTS correlated_requests;
DROP FUNCTION IF EXISTS router_record(text);

ALTER TABLE router_requests RENAME TO router_requests_unpartitioned;
CREATE TABLE router_requests (LIKE router_requests_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (received_at);
CREATE TABLE router_requests_default PARTITION OF router_requests DEFAULT;

ALTER TABLE loadgen_requests RENAME TO loadgen_requests_unpartitioned;
CREATE TABLE loadgen_requests (LIKE loadgen_requests_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (started_at);
CREATE TABLE loadgen_requests_default PARTITION OF loadgen_requests DEFAULT;

ALTER TABLE instance_samples RENAME TO instance_samples_unpartitioned;
CREATE TABLE instance_samples (LIKE instance_samples_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (ts);
CREATE TABLE instance_samples_default PARTITION OF instance_samples DEFAULT;

-- Every day that holds rows, and the coming week, gets its partition before the rows move.
SELECT paasmon_ensure_partition('router_requests', d)
FROM (SELECT DISTINCT date_trunc('day', received_at) AS d FROM router_requests_unpartitioned) x;
SELECT paasmon_ensure_partition('loadgen_requests', d)
FROM (SELECT DISTINCT date_trunc('day', started_at) AS d FROM loadgen_requests_unpartitioned) x;
SELECT paasmon_ensure_partition('instance_samples', d)
FROM (SELECT DISTINCT date_trunc('day', ts) AS d FROM instance_samples_unpartitioned) x;
SELECT paasmon_ensure_partitions(now() - interval '1 day', now() + interval '7 days');

INSERT INTO router_requests SELECT * FROM router_requests_unpartitioned;
INSERT INTO loadgen_requests SELECT * FROM loadgen_requests_unpartitioned;
INSERT INTO instance_samples SELECT * FROM instance_samples_unpartitioned;
DROP TABLE router_requests_unpartitioned;
DROP TABLE loadgen_requests_unpartitioned;
DROP TABLE instance_samples_unpartitioned;

-- 001's keys and indexes (009's hash index), now on the partitioned tables and each partition.
ALTER TABLE router_requests ADD CONSTRAINT router_requests_received_at_vcap_request_id_app_guid_key
  UNIQUE (received_at, vcap_request_id, app_guid);
CREATE INDEX router_requests_correlation_id ON router_requests USING hash (correlation_id);
CREATE INDEX router_requests_app_received_at ON router_requests (app_name, received_at);
ALTER TABLE loadgen_requests ADD CONSTRAINT loadgen_requests_pkey PRIMARY KEY (run_id, correlation_id, started_at);
ALTER TABLE instance_samples ADD CONSTRAINT instance_samples_pkey
  PRIMARY KEY (app_guid, process_type, instance_index, ts);
CREATE INDEX instance_samples_app_name_ts ON instance_samples (app_name, ts);
CREATE INDEX instance_samples_ts ON instance_samples (ts);


-- Where each run's load-generator requests are in time, so a query of one run reads only the
-- partitions of its days (run-time partition pruning on started_at BETWEEN first and last): a row
-- per COPY page (per statement), appended by the statement trigger below; never updated, so
-- writers of one run never wait for each other. Rows deleted later leave the span wider, never
-- narrower: it bounds the search, it is not a figure.
CREATE TABLE loadgen_spans (
  run_id           bigint NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
  first_started_at timestamptz NOT NULL,
  last_started_at  timestamptz NOT NULL
);
CREATE INDEX loadgen_spans_run_id ON loadgen_spans (run_id);
INSERT INTO loadgen_spans SELECT run_id, min(started_at), max(started_at) FROM loadgen_requests GROUP BY run_id;

-- The span of a run's requests (NULLs when it has none).
CREATE OR REPLACE FUNCTION loadgen_span(run bigint)
RETURNS TABLE (first_started_at timestamptz, last_started_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT min(s.first_started_at), max(s.last_started_at) FROM loadgen_spans s WHERE s.run_id = run
$$;

-- 008's check of the runs, and the span of the rows written.
CREATE OR REPLACE FUNCTION loadgen_requests_check_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
BEGIN
  PERFORM 1 FROM test_runs r WHERE r.id IN (SELECT DISTINCT run_id FROM new_rows) FOR KEY SHARE;
  SELECT n.run_id INTO missing
  FROM (SELECT DISTINCT run_id FROM new_rows) n
  WHERE NOT EXISTS (SELECT 1 FROM test_runs r WHERE r.id = n.run_id)
  LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert into loadgen_requests: run % does not exist in test_runs', missing
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  INSERT INTO loadgen_spans (run_id, first_started_at, last_started_at)
  SELECT run_id, min(started_at), max(started_at) FROM new_rows GROUP BY run_id;
  RETURN NULL;
END $$;

-- 008's checks of the runs, per statement on the partitioned table.
CREATE TRIGGER loadgen_requests_check_runs AFTER INSERT ON loadgen_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loadgen_requests_check_runs();
CREATE TRIGGER loadgen_requests_check_moved_runs AFTER UPDATE ON loadgen_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loadgen_requests_check_runs();

-- steady_windows and run_data_marks (reading a run's requests within its span), router_record
-- (correlation, near), correlated_requests, run_comparison and run_summary are in sql/views/, applied
-- after the migrations in the same transaction.

-- When raw rows of a run were dropped by retention (paasmon prune): its stored report figures are
-- then its figures, whatever the data mark says.
CREATE TABLE IF NOT EXISTS run_prunes (
  run_id    bigint PRIMARY KEY REFERENCES test_runs (id) ON DELETE CASCADE,
  pruned_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
-- Nothing: the rows stay where they are; the partitioned tables answer every query the plain ones did.
