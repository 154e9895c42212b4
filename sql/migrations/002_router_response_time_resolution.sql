-- Up Migration
-- Logsearch indexes rtr.response_time_ms as a whole number: 1 marks a time known only to the
-- millisecond; NULL means exact (read from the gorouter line, microseconds).
ALTER TABLE router_requests ADD COLUMN response_time_resolution_ms double precision;

-- Down Migration
ALTER TABLE router_requests DROP COLUMN response_time_resolution_ms;
