-- The router record of a load-generator request: the earliest received with its correlation id;
-- ties (the same received_at) go by the rest of the unique key, so the pick is always the same.
-- received_at is the clock of the gorouter that logged the record: a nested call through another
-- gorouter whose clock is behind by more than the time the app took before making it would be
-- picked instead (NTP keeps the routers' clocks within a few ms).
-- Looked for within an hour of `near` (the request's start) when given: the lookup then reads the
-- correlation id index of that day's partition only (two near midnight; run-time partition
-- pruning), not of every day kept. OFFSET 0 keeps the lookup by correlation id apart from the
-- ORDER BY ... LIMIT 1: without it the planner may walk the unique key's time order through every
-- record of those days, filtering on the id.
CREATE OR REPLACE FUNCTION router_record(correlation text, near timestamptz DEFAULT NULL)
RETURNS SETOF router_requests
LANGUAGE sql STABLE AS $$
  SELECT * FROM (
    SELECT * FROM router_requests r
    WHERE r.correlation_id = correlation
      AND r.received_at >= coalesce(near - interval '1 hour', '-infinity')
      AND r.received_at <= coalesce(near + interval '1 hour', 'infinity')
    OFFSET 0
  ) r
  ORDER BY r.received_at, r.vcap_request_id, r.app_guid
  LIMIT 1
$$;
