// Builds test runs directly in PostgreSQL (generate_series, so a million requests take seconds):
// load-generator requests spread evenly over the run, router records for them, and instance
// samples on a fixed poll schedule. Used by the report tests and bench/report.bench.js.

/**
 * @typedef {object} SeedRun
 * @property {string} label
 * @property {string} app
 * @property {string} [implementation]
 * @property {number} [instances]
 * @property {number} [coresPerInstance]
 * @property {number} [parallel]
 * @property {number} [round]
 * @property {Record<string, string>} [meta]
 * @property {Date} start first send
 * @property {number} spanS first send to last response, seconds
 * @property {number} successful requests with status 200
 * @property {number} [serverErrors] requests with status 503 (spread over the run)
 * @property {number} [timeouts] requests with status 0, error 'timeout' (spread over the run)
 * @property {string} [durationSql] SQL of duration_ms from the row number i (0-based); default constant 5
 * @property {boolean} [router] write a router record for every request (default true)
 * @property {string} [path] request path of the router records
 * @property {number} [paths] that many paths, `<path>/<k>`, spread over the requests by their ids (default 1: `path`)
 * @property {number[]} [cpuPolls] per poll, CPU summed over instances (% of one core), repeated to fill the run
 * @property {number} [pollS] seconds between polls (5)
 * @property {number} [memMiBPerInstance] (256)
 */

/**
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query
 * @param {SeedRun} spec
 * @returns {Promise<number>} the run id
 */
export async function seedRun(query, spec) {
  const total = spec.successful + (spec.serverErrors ?? 0) + (spec.timeouts ?? 0);
  const end = new Date(spec.start.getTime() + spec.spanS * 1000);
  const { rows } = await query(
    `INSERT INTO test_runs (label, app_name, implementation, instances, parallel, round, cores_per_instance, started_at, ended_at, meta)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [
      spec.label,
      spec.app,
      spec.implementation ?? null,
      spec.instances ?? null,
      spec.parallel ?? null,
      spec.round ?? null,
      spec.coresPerInstance ?? null,
      spec.start,
      end,
      spec.meta ?? {},
    ],
  );
  const runId = Number(rows[0].id);
  // Request i: the n-th error at row n x k + k - 1 (server errors first, then timeouts), the rest
  // successful. The last request has the longest duration, so it ends the span exactly.
  const errors = (spec.serverErrors ?? 0) + (spec.timeouts ?? 0);
  const duration = spec.durationSql ?? '5';
  await query(
    `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, error, worker)
    SELECT $1::bigint, $1::bigint || '-' || i, $2::timestamptz + (i * ($3 - d.last) / greatest($4 - 1, 1)) * interval '1 millisecond',
           CASE WHEN i = $4 - 1 THEN d.last ELSE least(${duration}, d.last) END,
           CASE kind WHEN 'timeout' THEN 0 WHEN 'server' THEN 503 ELSE 200 END,
           CASE kind WHEN 'timeout' THEN 'timeout' END, 'seed'
    FROM (SELECT i, CASE WHEN i % $6 = $6 - 1 AND i / $6 < $7 THEN CASE WHEN i / $6 < $5 THEN 'server' ELSE 'timeout' END
                         ELSE 'ok' END AS kind
          FROM generate_series(0, $4 - 1) i) g
    CROSS JOIN (SELECT max(${duration})::double precision AS last FROM generate_series(0, $4 - 1) i) d`,
    [
      runId,
      spec.start,
      spec.spanS * 1000,
      total,
      spec.serverErrors ?? 0,
      Math.max(1, Math.floor(total / Math.max(1, errors))),
      errors,
    ],
  );
  if (spec.router ?? true) {
    await query(
      `INSERT INTO router_requests (received_at, app_guid, app_name, app_index, method, path, status, response_time_ms, gorouter_time_ms, vcap_request_id, correlation_id)
      SELECT started_at + interval '0.2 millisecond', 'guid-' || $2, $2, 0, 'GET',
             CASE WHEN $4 > 1 THEN $3 || '/' || abs(hashtext(correlation_id) % $4) ELSE $3 END, status,
             duration_ms * 0.8, 0.05 + (hashtext(correlation_id) & 7) * 0.01, correlation_id, correlation_id
      FROM loadgen_requests WHERE run_id = $1 AND status <> 0`,
      [runId, spec.app, spec.path ?? '/api', spec.paths ?? 1],
    );
  }
  const polls = spec.cpuPolls ?? [];
  if (polls.length) {
    const instances = spec.instances ?? 1;
    const pollS = spec.pollS ?? 5;
    await query(
      `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes, mem_quota_bytes)
      SELECT $2::timestamptz + ((k + 0.5) * $3::double precision) * interval '1 second', 'guid-' || $1, $1, 'web', j, 'RUNNING',
             ($4::double precision[])[1 + k % array_length($4::double precision[], 1)] / $5::int, $6::bigint * 1048576, 1073741824
      FROM generate_series(0, floor($7::double precision / $3::double precision)::int - 1) k CROSS JOIN generate_series(0, $5::int - 1) j`,
      [spec.app, spec.start, pollS, polls, instances, spec.memMiBPerInstance ?? 256, spec.spanS],
    );
  }
  return runId;
}

/**
 * The runs the sql/queries tests read: three rounds of one setup (server errors, timeouts, router
 * records, CPU polls, a path per round) and a run without router records or samples.
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query
 */
export async function seedQueryRuns(query) {
  const base = Date.parse('2026-03-01T12:00:00Z');
  const round = (/** @type {number} */ r) =>
    seedRun(query, {
      label: 'java 2x1 core',
      app: 'shop',
      implementation: 'java',
      instances: 2,
      coresPerInstance: 1,
      parallel: 4,
      round: r,
      start: new Date(base + r * 3_600_000),
      spanS: 100,
      successful: 1900 + 100 * r,
      serverErrors: 30 + r,
      timeouts: 10,
      durationSql: `1 + (i * ${7919 + r} % 1000) / 50.0`,
      cpuPolls: [150 + r, 130, 170 - 2 * r, 140],
      memMiBPerInstance: 300 + r,
      path: `/api/${r}`,
    });
  const rounds = [await round(1), await round(2), await round(3)];
  const bare = await seedRun(query, {
    label: 'no router, no samples',
    app: 'bare',
    start: new Date(base + 10 * 3_600_000),
    spanS: 30,
    successful: 300,
    router: false,
  });
  return { rounds, bare };
}
