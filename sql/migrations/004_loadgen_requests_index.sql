-- Up Migration
-- The primary key (run_id, correlation_id) already serves the correlation join, which is always
-- per run; the extra index only cost the load generator's writes (bench/loadgen.bench.js).
DROP INDEX IF EXISTS loadgen_requests_correlation_id;

-- Down Migration
CREATE INDEX loadgen_requests_correlation_id ON loadgen_requests (correlation_id);
