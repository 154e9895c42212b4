-- Up Migration
-- Router records are looked up by correlation id only by equality (the correlation view, run
-- reports, latency breakdown, paths). A hash index keeps a 4-byte hash code per row where the
-- B-tree kept the whole id (36 characters for a UUID, in random order): bench/ingest.bench.js
-- measures what each index costs router-log ingest's keyed COPY. Rows without a correlation id
-- (NULL) are not in a hash index; no query looks them up by it.
DROP INDEX IF EXISTS router_requests_correlation_id;
CREATE INDEX router_requests_correlation_id ON router_requests USING hash (correlation_id);

-- Down Migration
DROP INDEX IF EXISTS router_requests_correlation_id;
CREATE INDEX router_requests_correlation_id ON router_requests (correlation_id);
