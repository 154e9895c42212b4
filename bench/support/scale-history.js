// The history of the scale bench (bench/scale.bench.js): a database grown to many runs over day
// partitions with server-side INSERT ... SELECT generate_series, the past days loaded as
// PostgreSQL's bulk-load advice says (indexes built after the load).

const DAY_MS = 86_400_000;
const RUNS_PER_DAY = 10;

/** @typedef {{ query: (sql: string, params?: unknown[]) => Promise<any> }} Database */
/** @typedef {{ routerRows: number, loadgenRows: number, days: number, jobs: number, today: number }} Size */

/**
 * Loads one partition of a history day as PostgreSQL's bulk-load advice says: detached, emptied of
 * its indexes, filled by `fill` (SQL of an INSERT into it), its indexes and keys built again as
 * they were, attached back. Today's partition, where the measured writes go, is filled through
 * the parent with its indexes in place, as a day of production is.
 * @param {Database} db @param {string} parent @param {Date} day @param {number} today
 * @param {(table: string, partition: string) => Promise<unknown>} fill table: where to INSERT
 */
async function loadPartition(db, parent, day, today, fill) {
  const part = `${parent}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
  if (day.getTime() >= today) {
    await fill(parent, part);
    return;
  }
  const { rows: indexes } = await db.query(
    `SELECT pg_get_indexdef(i.indexrelid) AS def, c.conname, pg_get_constraintdef(c.oid) AS condef
     FROM pg_index i LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid
     WHERE i.indrelid = $1::regclass`,
    [part],
  );
  const next = new Date(day.getTime() + DAY_MS).toISOString();
  const key = { router_requests: 'received_at', loadgen_requests: 'started_at' }[parent];
  await db.query(`ALTER TABLE ${parent} DETACH PARTITION ${part}`);
  await db.query(`DROP TABLE ${part}`);
  await db.query(`CREATE TABLE ${part} (LIKE ${parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await fill(part, part);
  for (const index of indexes)
    await db.query(index.conname ? `ALTER TABLE ${part} ADD CONSTRAINT ${index.conname} ${index.condef}` : index.def);
  // The CHECK spares ATTACH its scan of the rows, as paasmon_ensure_partition does.
  await db.query(
    `ALTER TABLE ${part} ADD CONSTRAINT ${part}_range
     CHECK (${key} >= '${day.toISOString()}' AND ${key} < '${next}')`,
  );
  await db.query(
    `ALTER TABLE ${parent} ATTACH PARTITION ${part} FOR VALUES FROM ('${day.toISOString()}') TO ('${next}')`,
  );
  await db.query(`ALTER TABLE ${part} DROP CONSTRAINT ${part}_range`);
}

/**
 * The history: runs of RUNS_PER_DAY a day over DAYS days ending today, their load-generator
 * requests, a router record for each (and router rows of no run beyond them), instance samples;
 * `jobs` days loaded at once.
 * @param {Database} db @param {Size} size
 */
export async function grow(db, { routerRows, loadgenRows, days: DAYS, jobs, today }) {
  const runs = DAYS * RUNS_PER_DAY;
  const perRun = Math.max(1, Math.floor(loadgenRows / runs));
  const slotMs = DAY_MS / RUNS_PER_DAY;
  const base = new Date(today - (DAYS - 1) * DAY_MS).toISOString();
  await db.query(`SELECT paasmon_ensure_partitions($1, now() + interval '7 days')`, [base]);
  await db.query(
    `INSERT INTO test_runs (label, app_name, instances, cores_per_instance, started_at, ended_at)
     SELECT 'history ' || r, 'shop', 2, 2, $1::timestamptz + r * $2::bigint * interval '1 ms',
            $1::timestamptz + (r + 0.5) * $2::bigint * interval '1 ms'
     FROM generate_series(0, $3 - 1) r`,
    [base, slotMs, runs],
  );
  const { rows: ids } = await db.query(`SELECT min(id)::int AS first FROM test_runs WHERE label LIKE 'history %'`);
  const routerPerDay = Math.floor(routerRows / DAYS);
  // A run's requests spread over the first half of its slot.
  const loadDay = async (/** @type {number} */ day) => {
    const from = day * RUNS_PER_DAY;
    const date = new Date(today - (DAYS - 1 - day) * DAY_MS);
    await loadPartition(db, 'loadgen_requests', date, today, async (table, part) => {
      await db.query(
        `INSERT INTO ${table} (run_id, correlation_id, started_at, duration_ms, status, worker)
         SELECT $4 + r, r || '-' || j,
                $1::timestamptz + (r * $2::bigint + j * ($2::bigint / 2) / $3) * interval '1 ms',
                1 + (j::bigint * 7919 % 1000) / 50.0, CASE WHEN j % 50 = 0 THEN 503 ELSE 200 END, 'w' || (j % 8)
         FROM generate_series($5::int, $5::int + ${RUNS_PER_DAY} - 1) r, generate_series(0, $3 - 1) j`,
        [base, slotMs, perRun, ids[0].first, from],
      );
      // What the statement trigger on loadgen_requests records for rows written through it.
      if (table === part)
        await db.query(
          `INSERT INTO loadgen_spans SELECT run_id, min(started_at), max(started_at) FROM ${part} GROUP BY run_id`,
        );
    });
    await loadPartition(db, 'router_requests', date, today, (table) =>
      db.query(
        `INSERT INTO ${table} (received_at, app_guid, app_name, app_index, method, path, status,
                              response_time_ms, gorouter_time_ms, vcap_request_id, correlation_id)
         SELECT CASE WHEN k < $3 * ${RUNS_PER_DAY}
                     THEN $1::timestamptz
                          + ((k / $3 + $4) * $2::bigint + (k % $3) * ($2::bigint / 2) / $3 + 0.2) * interval '1 ms'
                     ELSE $1::timestamptz
                          + ($4::bigint / ${RUNS_PER_DAY} * ${DAY_MS} + k * ${DAY_MS}.0 / $5) * interval '1 ms' END,
                'guid-shop', 'shop', k % 4, 'GET', '/api/items/' || (k % 100), 200,
                0.5 + (k::bigint * 7919 % 1000) / 60.0, 0.1, 'v' || $4 || '-' || k,
                CASE WHEN k < $3 * ${RUNS_PER_DAY} THEN ($4 + k / $3) || '-' || (k % $3) END
         FROM generate_series(0, $5 - 1) k`,
        [base, slotMs, perRun, from, routerPerDay],
      ),
    );
  };
  const days = Array.from({ length: DAYS }, (_, day) => day);
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let day = days.shift(); day !== undefined; day = days.shift()) await loadDay(day);
    }),
  );
  await db.query(
    `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes)
     SELECT $1::timestamptz + s * interval '10 s', 'guid-shop', 'shop', 'web', i, 'RUNNING', 50 + s % 40, 300 * 1048576
     FROM generate_series(0, $2 * 8640 - 1) s, generate_series(0, 1) i`,
    [base, DAYS],
  );
  await db.query('VACUUM ANALYZE');
}
