// Retention: whole day partitions older than a limit dropped (a metadata operation, never a
// DELETE), after every run with rows in them has its figures stored (run_figures) and is marked
// pruned (run_prunes), so reports and run_summary still show it from the stored figures.
import { withClient } from '../client.js';
import { pgArray } from '../queries/report.js';
import { refreshRunFigures } from './run-figures.js';

const DAY_MS = 86_400_000;
/** How long dropping partitions may wait for the writers' locks before prune gives up this time. */
const LOCK_TIMEOUT = '10s';

/**
 * The limit actually used for `before`: moved back to the start of any run that began before it
 * and ended after it (a run that has not ended counts as ending a day after its start), then to
 * the start of its UTC day, so no run newer than the limit loses a row.
 * @param {import('pg').Pool | import('pg').PoolClient} db @param {Date} before
 * @returns {Promise<Date>}
 */
export async function pruneLimit(db, before) {
  const { rows } = await db.query(
    `SELECT date_trunc('day', least($1::timestamptz, min(t.started_at)) AT TIME ZONE 'UTC')
              AT TIME ZONE 'UTC' AS limit_at
     FROM (SELECT $1::timestamptz AS started_at
           UNION ALL
           SELECT started_at FROM test_runs
           WHERE started_at < $1 AND coalesce(ended_at, started_at + interval '1 day') >= $1) t`,
    [before.toISOString()],
  );
  return new Date(rows[0].limit_at);
}

/**
 * What pruning before `limit` would drop: the day partitions that end at or before it, and the
 * runs (not pruned yet) that started before it.
 * @param {import('pg').Pool | import('pg').PoolClient} db @param {Date} limit
 */
export async function prunePlan(db, limit) {
  const { rows: partitions } = await db.query(
    // Only the partitions that go are sized: paasmon_partitions() sizes every one.
    `SELECT p.relname AS parent, c.relname AS partition, b.from_ts, b.to_ts,
            pg_total_relation_size(b.partition) AS bytes
     FROM paasmon_partition_bounds(ARRAY['router_requests', 'loadgen_requests', 'instance_samples']::regclass[]) b
     JOIN pg_class p ON p.oid = b.parent
     JOIN pg_class c ON c.oid = b.partition
     WHERE b.to_ts <= $1 ORDER BY b.from_ts, p.relname`,
    [limit.toISOString()],
  );
  const { rows: runs } = await db.query(
    `SELECT t.id FROM test_runs t WHERE t.started_at < $1
       AND NOT EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = t.id) ORDER BY t.id`,
    [limit.toISOString()],
  );
  return {
    partitions: partitions.map((p) => ({
      parent: String(p.parent),
      partition: String(p.partition),
      from: new Date(p.from_ts),
      to: new Date(p.to_ts),
      bytes: Number(p.bytes),
    })),
    runIds: runs.map((r) => Number(r.id)),
  };
}

/**
 * Drops the day partitions of router_requests, loadgen_requests and instance_samples before
 * `before` (see pruneLimit), after storing the figures of the runs in them (over the steady window
 * of `trim`, the report's default). dryRun: only says what would go. The caller has prepared the
 * partitions (preparePartitions: the prune command does, and collect's upkeep round), so rows of old days
 * that reached the default partition are in day partitions of their own. `steps`: ms each step took.
 * @param {import('pg').Pool} pool
 * @param {{ before: Date, trim: number, dryRun?: boolean, log?: import('pino').Logger }} options
 */
export async function prune(pool, { before, trim, dryRun = false, log }) {
  /** @type {Record<string, number>} */
  const steps = {};
  let mark = performance.now();
  const step = (/** @type {string} */ name) => {
    const now = performance.now();
    steps[name] = Math.round((now - mark) * 10) / 10;
    mark = now;
  };
  const limit = await pruneLimit(pool, before);
  const plan = await prunePlan(pool, limit);
  step('plan');
  const result = { limit, ...plan, bytes: plan.partitions.reduce((sum, p) => sum + p.bytes, 0), dropped: false, steps };
  if (dryRun || (plan.partitions.length === 0 && plan.runIds.length === 0)) return result;
  // Whether ended or not: after the drop, what is stored is all a run has.
  await refreshRunFigures(pool, plan.runIds, [trim], { ended: false });
  step('figures');
  await withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await client.query(
        'INSERT INTO run_prunes (run_id) SELECT unnest($1::bigint[]) ON CONFLICT (run_id) DO NOTHING',
        [pgArray(plan.runIds)],
      );
      await client.query('SELECT paasmon_drop_partitions($1::text[])', [plan.partitions.map((p) => p.partition)]);
      step('drop');
      await client.query('COMMIT');
      step('commit');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  });
  log?.debug({ steps }, 'prune steps');
  return { ...result, dropped: true };
}

/**
 * The runs whose raw rows were pruned, and when.
 * @param {import('pg').Pool} pool @param {number[]} runIds
 * @returns {Promise<Array<{ runId: number, prunedAt: Date }>>}
 */
export async function prunedRuns(pool, runIds) {
  const { rows } = await pool.query(
    'SELECT run_id, pruned_at FROM run_prunes WHERE run_id = ANY ($1::bigint[]) ORDER BY run_id',
    [pgArray(runIds)],
  );
  return rows.map((r) => ({ runId: Number(r.run_id), prunedAt: new Date(r.pruned_at) }));
}

/**
 * The limit of a retention setting at `now`: `180d` keeps 180 days.
 * @param {number} retentionMs @param {Date} [now]
 */
export const retentionLimit = (retentionMs, now = new Date()) =>
  new Date(Math.floor((now.getTime() - retentionMs) / DAY_MS) * DAY_MS);
