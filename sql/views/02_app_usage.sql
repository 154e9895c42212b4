-- One row per sampling moment of the app in [from_ts, to_ts] (a time any of its instances
-- reported a new reading of CPU, and the first row in the range: the readings current when it
-- opened): the sum over its instances of each one's latest reading at or before that moment.
-- - A reading is a sample with CPU that is no repeat (`repeated`: a Cloud Controller poll between
--   two of the platform's measurements answers the previous one again), or one of an instance not
--   running (its CPU counts as nothing from then on); a sample without CPU of a running instance
--   (Log Cache sends cpu_entitlement apart from cpu) is not a reading and hides nothing. So a
--   reading weighs once, however many polls saw it.
-- - An instance's latest row counts while it is at most twice that instance's usual interval old
--   (the median gap between its rows with CPU, repeats included, so a poll's interval, from 5
--   minutes before the range; 5 minutes when it has one), so an instance that stopped reporting
--   (crashed, scaled down) drops out instead of being carried forward. A repeat holds the reading
--   it repeats.
-- - A moment where two or more instances have a row at once is a poll (the Cloud Controller gives
--   every instance the poll's time): only the instances in that poll count (with their latest
--   reading, repeated or new), so an instance gone from the poll is gone at once. Log Cache
--   reports of two instances in the same millisecond are taken for such a poll too (rare: a
--   moment's sum is then short of the others).
-- cpu_percent: percent of ONE core; mem_bytes: bytes, of the instances whose CPU counted;
-- instances: how many were summed.
CREATE OR REPLACE FUNCTION app_usage(app text, from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (ts timestamptz, instances bigint, cpu_percent double precision, mem_bytes double precision)
LANGUAGE sql STABLE AS $$
  WITH reported AS (
    SELECT s.app_guid, s.process_type, s.instance_index, s.ts, s.repeated
    FROM instance_samples s
    WHERE s.app_name = app AND s.ts BETWEEN from_ts - interval '5 minutes' AND to_ts AND s.cpu_percent IS NOT NULL
  ), members AS MATERIALIZED (
    -- Each instance's usual interval, once: not again for every moment it is crossed with.
    SELECT r.app_guid, r.process_type, r.instance_index,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.gap) AS usual_gap
    FROM (SELECT reported.*,
                 ts - lag(ts) OVER (PARTITION BY app_guid, process_type, instance_index ORDER BY ts) AS gap
          FROM reported) r
    GROUP BY r.app_guid, r.process_type, r.instance_index
  ), moments AS (
    SELECT r.ts, (SELECT count(*) FROM instance_samples p WHERE p.app_name = app AND p.ts = r.ts) AS rows
    FROM reported r
    WHERE r.ts >= from_ts
      AND (r.repeated IS NOT TRUE OR r.ts = (SELECT min(f.ts) FROM reported f WHERE f.ts >= from_ts))
    GROUP BY r.ts
  )
  SELECT m.ts, count(latest.cpu_percent), sum(latest.cpu_percent),
         (sum(latest.mem_bytes) FILTER (WHERE latest.cpu_percent IS NOT NULL))::double precision
  FROM moments m
  CROSS JOIN members i
  CROSS JOIN LATERAL (
    SELECT x.cpu_percent, x.mem_bytes FROM instance_samples x
    WHERE x.app_guid = i.app_guid AND x.process_type = i.process_type AND x.instance_index = i.instance_index
      AND (x.cpu_percent IS NOT NULL OR x.state <> 'RUNNING')
      AND x.ts <= m.ts
      AND x.ts >= CASE WHEN m.rows > 1 THEN m.ts
                       ELSE m.ts - coalesce(2 * i.usual_gap, interval '5 minutes') END
    ORDER BY x.ts DESC LIMIT 1
  ) latest
  GROUP BY m.ts
$$;
