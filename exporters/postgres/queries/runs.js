// Test runs: what every comparison groups by. A run's parameters are stored, never guessed.

/**
 * @typedef {object} RunSpec
 * @property {string} label
 * @property {string} [appName] unknown when not given (never guessed)
 * @property {string} [implementation]
 * @property {number} [instances]
 * @property {number} [parallel]
 * @property {number} [round]
 * @property {number} [coresPerInstance]
 * @property {Record<string, string>} [meta]
 */

/** @param {import('pg').Pool} pool @param {RunSpec} spec @returns {Promise<number>} the run id */
export async function startRun(pool, spec) {
  const { rows } = await pool.query(
    `INSERT INTO test_runs (label, app_name, implementation, instances, parallel, round, cores_per_instance, meta)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      spec.label,
      spec.appName ?? null,
      spec.implementation ?? null,
      spec.instances ?? null,
      spec.parallel ?? null,
      spec.round ?? null,
      spec.coresPerInstance ?? null,
      spec.meta ?? {},
    ],
  );
  return Number(rows[0].id);
}

/**
 * Deletes a run a command had just made for a load that never started (its tool could not be run):
 * a run without a single request of its own is not left behind.
 * @param {import('pg').Pool} pool @param {number} id
 */
export async function discardRun(pool, id) {
  await pool.query(
    'DELETE FROM test_runs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM loadgen_requests WHERE run_id = $1)',
    [id],
  );
}

/**
 * @param {import('pg').Pool} pool
 * @param {number} id
 * @returns {Promise<boolean>} false when there is no such open run
 */
export async function stopRun(pool, id) {
  const { rowCount } = await pool.query('UPDATE test_runs SET ended_at = now() WHERE id = $1 AND ended_at IS NULL', [
    id,
  ]);
  return rowCount === 1;
}

/**
 * Ends a run the load generator created, when its load ends (however it ends).
 * @param {import('pg').Pool} pool @param {number} id
 */
export async function finishRun(pool, id) {
  await pool.query('UPDATE test_runs SET ended_at = now() WHERE id = $1 AND ended_at IS NULL', [id]);
}

/**
 * Ends a run workers drove, unless another worker is still recording into it (a worker may join a
 * run up to a poll later than the first): the last worker to finish ends it, at its last response.
 * @param {import('pg').Pool} pool @param {number} id @param {number} quietMs no records this recent
 * @returns {Promise<boolean>} whether it was ended now
 */
export async function finishDrivenRun(pool, id, quietMs) {
  const { rowCount } = await pool.query(
    `UPDATE test_runs t SET ended_at = coalesce(
       (SELECT max(started_at + duration_ms * interval '1 millisecond') FROM loadgen_requests WHERE run_id = t.id),
       now())
     WHERE id = $1 AND ended_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM loadgen_requests l WHERE l.run_id = t.id
         AND l.started_at + l.duration_ms * interval '1 millisecond' > now() - $2 * interval '1 millisecond')`,
    [id, quietMs],
  );
  return rowCount === 1;
}

/** @param {import('pg').Pool} pool @param {number} id */
export async function getRun(pool, id) {
  const { rows } = await pool.query('SELECT * FROM test_runs WHERE id = $1', [id]);
  return rows[0];
}

/** @param {import('pg').Pool} pool */
export async function listRuns(pool) {
  const { rows } =
    await pool.query(`SELECT t.id, t.label, t.app_name, t.implementation, t.instances, t.parallel, t.round,
      t.cores_per_instance, t.started_at, t.ended_at, t.meta, count(l.*)::int AS requests
    FROM test_runs t LEFT JOIN loadgen_requests l ON l.run_id = t.id GROUP BY t.id ORDER BY t.id`);
  return rows;
}

/**
 * Open runs that carry load parameters (meta.url): what idle workers pick up.
 * @param {import('pg').Pool} pool @returns {Promise<Array<{ id: number, meta: Record<string, string> }>>}
 */
export async function scheduledRuns(pool) {
  const { rows } = await pool.query(
    `SELECT id, meta FROM test_runs WHERE ended_at IS NULL AND meta ? 'url' ORDER BY id`,
  );
  return rows.map((row) => ({ id: Number(row.id), meta: row.meta }));
}

/** Whether `worker` already recorded requests into the run (it drove it before a restart). */
export async function workerDroveRun(
  /** @type {import('pg').Pool} */ pool,
  /** @type {number} */ runId,
  /** @type {string} */ worker,
) {
  const { rowCount } = await pool.query('SELECT 1 FROM loadgen_requests WHERE run_id = $1 AND worker = $2 LIMIT 1', [
    runId,
    worker,
  ]);
  return Boolean(rowCount);
}

/**
 * The window of a run an import created: from the first request sent to the last completed.
 * @param {import('pg').Pool} pool @param {number} id @param {Date} from @param {Date} to
 */
export async function setRunWindow(pool, id, from, to) {
  await pool.query('UPDATE test_runs SET started_at = $2, ended_at = $3 WHERE id = $1', [id, from, to]);
}

/**
 * Names the load tool of a run in its meta (`tool`), where the report and `run list` show it.
 * @param {import('pg').Pool} pool @param {number} id @param {string} tool
 */
export async function setRunTool(pool, id, tool) {
  await pool.query(
    `UPDATE test_runs SET meta = coalesce(meta, '{}'::jsonb) || jsonb_build_object('tool', $2::text)
    WHERE id = $1`,
    [id, tool],
  );
}
