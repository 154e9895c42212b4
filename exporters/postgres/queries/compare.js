// What `paasmon compare` reads of each run: its row and steady window, its requests joined with
// their router records aggregated in the database into time-ordered blocks (per block and e2e
// bucket: counts and sums per layer; per block and router path: counts and sums), and its app's
// CPU and memory per sampling moment. A million-request run arrives as a few thousand rows; the
// statistics (report/compare/) work on those.
import { withClient } from '../client.js';
import { onSharedSnapshot } from './shared-snapshot.js';
import { LATENCY_BUCKET_GAMMA, LATENCY_BUCKET_MIN_MS, REPORT_CONNECTIONS } from '../../../core/tunables.js';
import { ConfigError } from '../../../core/errors.js';
import { pgArray, selectRuns } from './report.js';

/** Blocks per run's steady window: the batches of batch means and the bootstrap's units. */
export const BLOCKS = 32;

// $1 run, $2/$3 the steady window, $4 blocks per second, $5 blocks, $6 the lowest bucket's bound, $7 ln γ;
// %s the join.
const BLOCKS_SQL = `
  WITH j AS (
    SELECT l.started_at, l.duration_ms AS d, l.status, x.path, x.response_time_ms AS rt, x.gorouter_time_ms AS gt
    FROM loadgen_requests l %s
    WHERE l.run_id = $1 AND l.started_at BETWEEN $2 AND $3
  )
  SELECT GROUPING(k.path) = 0 AS by_path, k.block, k.bucket, k.path, count(*) AS n,
         count(*) FILTER (WHERE k.status = 0 OR k.status >= 500) AS errors,
         count(*) FILTER (WHERE k.status BETWEEN 1 AND 499) AS ok,
         sum(k.d) AS e2e_sum, count(*) FILTER (WHERE k.m) AS matched,
         coalesce(sum(k.d) FILTER (WHERE k.m), 0) AS matched_e2e_sum,
         coalesce(sum(k.d - k.rt) FILTER (WHERE k.m), 0) AS outside_sum,
         coalesce(sum(k.gt) FILTER (WHERE k.m), 0) AS router_sum,
         coalesce(sum(k.rt - k.gt) FILTER (WHERE k.m), 0) AS behind_sum
  FROM (
    SELECT least(floor(extract(epoch FROM j.started_at - $2::timestamptz) * $4::float8)::int, $5::int - 1) AS block,
           ceil(ln(greatest(j.d, $6::float8)) / $7::float8)::int AS bucket, j.d, j.status, j.path, j.rt, j.gt,
           j.rt IS NOT NULL AND j.gt IS NOT NULL AS m
    FROM j
  ) k
  GROUP BY GROUPING SETS ((k.block, k.bucket), (k.block, k.path))`;
// One scan of each side, as run_request_figures joins a big run (sql/views/15_run_request_figures.sql).
const HASH_JOIN = `LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id
    AND x.received_at - l.started_at BETWEEN interval '-1 hour' AND interval '1 hour'
    AND x.received_at BETWEEN $2::timestamptz - interval '1 hour' AND $3::timestamptz + interval '1 hour'`;
// The first record of each correlation id (router_record), when some id has two.
const LOOKUP = 'LEFT JOIN LATERAL router_record(l.correlation_id, l.started_at) x ON true';

/**
 * The runs of a selection, as `paasmon report` selects them (selectRuns).
 * @typedef {{ runs?: number[], label?: string, since?: string }} Selection
 */

/**
 * The data of each side's runs (each side must select a run, none be on both sides), as
 * `paasmon compare` and `paasmon report --baseline --candidate` take them.
 * @param {import('pg').Pool} pool @param {Record<'baseline' | 'candidate', Selection>} selections
 * @param {{ trim: number }} options
 * @returns {Promise<Record<'baseline' | 'candidate', import('../../../core/types.js').CompareRunData[]>>}
 */
export async function loadSides(pool, selections, { trim }) {
  /** @type {Record<'baseline' | 'candidate', number[]>} */
  const ids = { baseline: [], candidate: [] };
  for (const side of /** @type {const} */ (['baseline', 'candidate'])) {
    const chosen = await selectRuns(pool, selections[side]);
    if (chosen.missing.length)
      throw new ConfigError(`--${side}: no such run: ${chosen.missing.join(', ')} (see \`paasmon run list\`)`, {
        variable: `--${side}`,
      });
    if (chosen.ids.length === 0)
      throw new ConfigError(`--${side} selects no run (see \`paasmon run list\`)`, { variable: `--${side}` });
    ids[side] = chosen.ids;
  }
  const both = ids.baseline.filter((id) => ids.candidate.includes(id));
  if (both.length)
    throw new ConfigError(`run ${both.join(', ')} is on both sides; a run is a round of one side only`, {
      variable: '--candidate',
    });
  const data = await loadCompareData(pool, [...ids.baseline, ...ids.candidate], { trim });
  const pick = (/** @type {number[]} */ list) => list.map((id) => /** @type {any} */ (data.get(id)));
  return { baseline: pick(ids.baseline), candidate: pick(ids.candidate) };
}

/**
 * Every run's data for report/compare (RunData), in one snapshot of the database.
 * @param {import('pg').Pool} pool @param {number[]} runIds @param {{ trim: number, blocks?: number }} options
 * @returns {Promise<Map<number, import('../../../core/types.js').CompareRunData>>}
 */
export async function loadCompareData(pool, runIds, { trim, blocks = BLOCKS }) {
  /** @type {Map<number, import('../../../core/types.js').CompareRunData>} */
  const byRun = new Map();
  await withClient(pool, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: runs } = await client.query(
      `SELECT t.id AS run_id, t.label, t.app_name, t.implementation, t.instances, t.parallel, t.round,
              t.cores_per_instance, t.meta, w.window_start, w.window_end,
              extract(epoch FROM w.window_end - w.window_start)::double precision AS window_s
       FROM steady_windows($1::bigint[], $2) w JOIN test_runs t ON t.id = w.run_id ORDER BY t.id`,
      [pgArray(runIds), trim],
    );
    const queue = [...runs];
    await onSharedSnapshot(pool, client, Math.min(queue.length, REPORT_CONNECTIONS) - 1, async (worker) => {
      await worker.query("SET LOCAL work_mem = '64MB'");
      for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
        byRun.set(Number(run.run_id), await runData(worker, run, blocks));
      }
    });
    await client.query('COMMIT');
  });
  return byRun;
}

/**
 * @param {import('pg').PoolClient} db @param {Record<string, any>} run @param {number} blocks
 * @returns {Promise<import('../../../core/types.js').CompareRunData>}
 */
async function runData(db, run, blocks) {
  const windowS = Number(run.window_s);
  const params = [
    run.run_id,
    run.window_start,
    run.window_end,
    windowS > 0 ? blocks / windowS : 0,
    blocks,
    LATENCY_BUCKET_MIN_MS,
    Math.log(LATENCY_BUCKET_GAMMA),
  ];
  let { rows } = await db.query(BLOCKS_SQL.replace('%s', HASH_JOIN), params);
  const joined = rows.filter((r) => !r.by_path).reduce((s, r) => s + Number(r.n), 0);
  const { rows: counted } = await db.query(
    'SELECT count(*) AS n FROM loadgen_requests WHERE run_id = $1 AND started_at BETWEEN $2 AND $3',
    [run.run_id, run.window_start, run.window_end],
  );
  // A correlation id with two router records joins its request twice: only the first counts.
  if (joined > Number(counted[0].n)) ({ rows } = await db.query(BLOCKS_SQL.replace('%s', LOOKUP), params));
  const { rows: usage } = await db.query(
    'SELECT cpu_percent AS cpu, mem_bytes AS mem FROM app_usage($1, $2, $3) ORDER BY ts',
    [run.app_name, run.window_start, run.window_end],
  );
  return { ...fromRows(rows, blocks), run: { ...run, window_s: windowS }, usage };
}

/**
 * @param {Array<Record<string, any>>} rows @param {number} count
 */
export function fromRows(rows, count) {
  const blocks = Array.from({ length: count }, () => ({
    n: 0,
    errors: 0,
    ok: 0,
    e2eSum: 0,
    matched: 0,
    matchedE2eSum: 0,
    outsideSum: 0,
    routerSum: 0,
    behindSum: 0,
    /** @type {Array<[number, number]>} */ hist: [],
  }));
  /** @type {Map<number, import('../../../core/types.js').CompareBucketLayers>} */
  const buckets = new Map();
  /** @type {Map<string, Array<{ block: number, n: number, e2eSum: number }>>} */
  const paths = new Map();
  for (const row of rows) {
    const b = blocks[row.block];
    if (row.by_path) {
      if (row.path === null || Number(row.matched) === 0) continue;
      const list = paths.get(row.path) ?? [];
      list.push({ block: row.block, n: Number(row.matched), e2eSum: Number(row.matched_e2e_sum) });
      paths.set(row.path, list);
      continue;
    }
    const n = Number(row.n);
    b.n += n;
    b.errors += Number(row.errors);
    b.ok += Number(row.ok);
    b.e2eSum += Number(row.e2e_sum);
    b.matched += Number(row.matched);
    b.matchedE2eSum += Number(row.matched_e2e_sum);
    b.outsideSum += Number(row.outside_sum);
    b.routerSum += Number(row.router_sum);
    b.behindSum += Number(row.behind_sum);
    b.hist.push([row.bucket, n]);
    const layers = buckets.get(row.bucket) ?? { n: 0, matched: 0, outsideSum: 0, routerSum: 0, behindSum: 0 };
    layers.n += n;
    layers.matched += Number(row.matched);
    layers.outsideSum += Number(row.outside_sum);
    layers.routerSum += Number(row.router_sum);
    layers.behindSum += Number(row.behind_sum);
    buckets.set(row.bucket, layers);
  }
  return { blocks, buckets, paths };
}
