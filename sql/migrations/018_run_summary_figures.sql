-- Up Migration
-- run_summary's figures of the requests of an ended run (run_request_figures over the whole run),
-- kept once computed and read back while nothing they were computed from has changed (the mark
-- of run_summary_request_figures, sql/views/30_run_summary.sql), under the same view files: a
-- dashboard's panels on a million-request run read a row instead of joining its requests again.
CREATE TABLE IF NOT EXISTS run_summary_figures (
  run_id         bigint PRIMARY KEY REFERENCES test_runs (id) ON DELETE CASCADE,
  data_mark      text NOT NULL,
  view_digest    text NOT NULL,
  computed_at    timestamptz NOT NULL DEFAULT now(),
  requests       bigint,
  errors         bigint,
  first_sent     timestamptz,
  last_done      timestamptz,
  e2e_mean_ms    double precision,
  e2e_pct        double precision[],
  e2e_max_ms     double precision,
  e2e_stddev_ms  double precision,
  router_records bigint,
  router_mean_ms double precision,
  router_pct     double precision[]
);

-- Down Migration
-- Nothing: run_summary_request_figures (behind run_summary) returns rows of this table, and a
-- release before it never reads the table.
