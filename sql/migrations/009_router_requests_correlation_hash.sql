-- Up Migration
-- Router records are looked up by correlation id only by equality (the correlation view, run
-- reports, latency breakdown, paths). A hash index keeps a 4-byte hash code per row where the
-- B-tree kept the whole id: with ids in random order (most load generators' UUIDs) a keyed COPY of
-- router rows costs PostgreSQL less CPU per row; with the time-ordered ids of paasmon's own load
-- generator a little more (bench/ingest.bench.js measures the index's cost). Rows without a
-- correlation id (NULL) are not in a hash index; no query looks them up by it. The rebuild holds a
-- lock on router_requests while it runs (in proportion to the table's rows), and, as
-- after every migration, `report` computes the stored figures of ended runs once more.
DROP INDEX IF EXISTS router_requests_correlation_id;
CREATE INDEX router_requests_correlation_id ON router_requests USING hash (correlation_id);

-- Down Migration
DROP INDEX IF EXISTS router_requests_correlation_id;
CREATE INDEX router_requests_correlation_id ON router_requests (correlation_id);
