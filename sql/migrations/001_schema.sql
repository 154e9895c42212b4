-- Up Migration
-- The whole contract schema (ARCHITECTURE.md, "tables and views"). Later migrations only add.
-- Times are timestamptz (stored as UTC); durations carry their unit in the column name.

CREATE TABLE test_runs (
  id                 bigserial PRIMARY KEY,
  label              text NOT NULL,
  app_name           text,
  implementation     text,
  instances          integer CHECK (instances IS NULL OR instances >= 0),
  parallel           integer CHECK (parallel IS NULL OR parallel >= 0),
  round              integer,
  cores_per_instance double precision CHECK (cores_per_instance IS NULL OR cores_per_instance > 0),
  started_at         timestamptz NOT NULL DEFAULT now(),
  ended_at           timestamptz,
  meta               jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- One row per app instance per poll. Usage columns are NULL when the instance was not running or
-- the metrics backend had no numbers: never 0 for "unknown".
-- cpu_percent: percent of one core (the API's fraction x 100; 250 = 2.5 cores).
-- cpu_entitlement_percent: percent of the instance's CPU entitlement (may exceed 100).
CREATE TABLE instance_samples (
  ts                      timestamptz NOT NULL,
  app_guid                text NOT NULL,
  app_name                text NOT NULL,
  process_type            text NOT NULL,
  instance_index          integer NOT NULL CHECK (instance_index >= 0),
  state                   text NOT NULL,
  cpu_percent             double precision CHECK (cpu_percent IS NULL OR cpu_percent >= 0),
  cpu_entitlement_percent double precision CHECK (cpu_entitlement_percent IS NULL OR cpu_entitlement_percent >= 0),
  mem_bytes               bigint,
  mem_quota_bytes         bigint,
  disk_bytes              bigint,
  disk_quota_bytes        bigint,
  uptime_s                bigint,
  PRIMARY KEY (app_guid, process_type, instance_index, ts)
);
CREATE INDEX instance_samples_app_name_ts ON instance_samples (app_name, ts);
CREATE INDEX instance_samples_ts ON instance_samples (ts);

-- One row per logged router request. '' (not NULL) marks an absent request id or app guid so the
-- unique key also holds for them on PostgreSQL versions without NULLS NOT DISTINCT.
CREATE TABLE router_requests (
  received_at      timestamptz NOT NULL,
  app_guid         text NOT NULL DEFAULT '',
  app_name         text,
  app_index        integer,
  instance_id      text,
  method           text,
  path             text,
  status           integer,
  response_time_ms double precision CHECK (response_time_ms IS NULL OR response_time_ms >= 0),
  gorouter_time_ms double precision CHECK (gorouter_time_ms IS NULL OR gorouter_time_ms >= 0),
  bytes_received   bigint,
  bytes_sent       bigint,
  vcap_request_id  text NOT NULL DEFAULT '',
  correlation_id   text,
  router_error     text,
  trace_id         text,
  UNIQUE (received_at, vcap_request_id, app_guid)
);
CREATE INDEX router_requests_correlation_id ON router_requests (correlation_id);
CREATE INDEX router_requests_app_received_at ON router_requests (app_name, received_at);

-- One row per load-generator request; status 0 when no response arrived (error says why).
CREATE TABLE loadgen_requests (
  run_id         bigint NOT NULL REFERENCES test_runs (id) ON DELETE CASCADE,
  correlation_id text NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    double precision NOT NULL CHECK (duration_ms >= 0),
  status         integer NOT NULL DEFAULT 0,
  error          text,
  worker         text,
  PRIMARY KEY (run_id, correlation_id)
);
CREATE INDEX loadgen_requests_correlation_id ON loadgen_requests (correlation_id);

-- Where each incremental reader stopped; moved only after the rows it covers are committed.
CREATE TABLE ingest_checkpoints (
  source     text PRIMARY KEY,
  position   text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE IF EXISTS ingest_checkpoints;
DROP TABLE IF EXISTS loadgen_requests;
DROP TABLE IF EXISTS router_requests;
DROP TABLE IF EXISTS instance_samples;
DROP TABLE IF EXISTS test_runs;
