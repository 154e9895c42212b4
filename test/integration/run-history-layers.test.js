// The router's own mean in a run's figures: run_summary's gorouter_mean_ms and run_history's three
// latency layers against the built rows (computed here), computed and stored alike; `paasmon
// changes` names the layer a shift was put into; migration 022's down takes the columns away with
// the grants kept, and up brings them back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { runCli } from '../support/cli.js';
import { seedLayeredRun } from '../support/compare-runs.js';
import { undoMigrationsFrom } from '../support/migrations.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {Record<string, number[]>} run ids per label, oldest first */
const runs = {};
const RUNS = 12;
const SHIFT_AT = 6;
const SHIFT_MS = 1;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  let minute = 0;
  /**
   * @param {string} label
   * @param {(shifted: boolean) => Partial<import('../support/compare-runs.js').LayeredRun>} spec
   */
  const history = async (label, spec) => {
    runs[label] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = new Date(Date.parse('2026-06-01T08:00:00Z') + 60_000 * minute++);
      const seed = 10 * Object.keys(runs).length + i;
      runs[label].push(await seedLayeredRun(db.query, { label, start, seed, requests: 300, ...spec(i >= SHIFT_AT) }));
    }
  };
  await history('router shift', (shifted) => ({ router: 0.5 + (shifted ? SHIFT_MS : 0) }));
  await history('behind shift', (shifted) => ({ behind: 8 + (shifted ? SHIFT_MS : 0) }));
});

after(async () => {
  await db?.stop();
});

/** @param {number[]} xs */
const mean = (xs) => xs.reduce((s, v) => s + v, 0) / xs.length;

/**
 * Each run's layer means from its raw rows: every request in e2e, the requests with a router
 * record in the router's means.
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query @param {number[]} ids
 */
async function expectedLayers(query, ids) {
  const { rows } = await query(
    `SELECT l.run_id::int AS run, l.duration_ms AS e2e, x.response_time_ms AS rt, x.gorouter_time_ms AS gt
     FROM loadgen_requests l LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id
     WHERE l.run_id = ANY ($1::bigint[])`,
    [ids],
  );
  return new Map(
    ids.map((id) => {
      const own = rows.filter((/** @type {any} */ r) => r.run === id);
      const routed = own.filter((/** @type {any} */ r) => r.rt !== null);
      const e2e = mean(own.map((/** @type {any} */ r) => r.e2e));
      const rt = mean(routed.map((/** @type {any} */ r) => r.rt));
      const gt = mean(routed.map((/** @type {any} */ r) => r.gt));
      return [id, { e2e, outside: e2e - rt, rt, gt, behind: rt - gt, matched: routed.length / own.length }];
    }),
  );
}

/** @param {number} a @param {number} b @param {string} what */
const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

/** @param {number[]} ids */
async function historyRows(ids) {
  const { rows } = await db.query('SELECT * FROM run_history WHERE run_id = ANY ($1::bigint[]) ORDER BY run_id', [ids]);
  const summary = await db.query('SELECT * FROM run_summary WHERE run_id = ANY ($1::bigint[]) ORDER BY run_id', [ids]);
  return rows.map((row, i) => ({ ...row, summaryGorouter: summary.rows[i].gorouter_mean_ms }));
}

test("run_summary's gorouter mean and run_history's three layers are the rows' means, computed or stored", async () => {
  const ids = [...runs['router shift'], ...runs['behind shift']];
  const expected = await expectedLayers(db.query, ids);
  /** @param {string} how */
  const check = async (how) => {
    for (const row of await historyRows(ids)) {
      const want = /** @type {any} */ (expected.get(Number(row.run_id)));
      assert.equal(want.matched, 1, 'every request of the built runs has its router record');
      close(row.summaryGorouter, want.gt, `${how} run ${row.run_id}: run_summary gorouter mean`);
      close(row.gorouter_mean_ms, want.gt, `${how} run ${row.run_id}: gorouter mean`);
      close(row.behind_router_mean_ms, want.behind, `${how} run ${row.run_id}: behind the router`);
      close(row.outside_router_mean_ms, want.outside, `${how} run ${row.run_id}: outside the router`);
      close(row.router_mean_ms, want.rt, `${how} run ${row.run_id}: router response_time`);
      close(
        row.outside_router_mean_ms + row.gorouter_mean_ms + row.behind_router_mean_ms,
        row.e2e_mean_ms,
        `${how} run ${row.run_id}: the layers add up to e2e`,
      );
    }
  };
  await check('computed');
  for (const id of ids) await db.query('SELECT refresh_run_figures($1)', [id]);
  const { rows: stored } = await db.query(
    'SELECT run_id::int AS run, stale, figures FROM run_figures WHERE run_id = ANY ($1::bigint[])',
    [ids],
  );
  for (const row of stored) {
    assert.equal(row.stale, false);
    const whole = row.figures.find((/** @type {any} */ f) => f.trim === 0).data.runs[0];
    close(
      whole.gorouter_mean_ms,
      /** @type {any} */ (expected.get(row.run)).gt,
      `run ${row.run}: stored gorouter mean`,
    );
  }
  await check('stored');
});

/** @param {string} label */
async function changes(label) {
  const { code, stdout, stderr } = await runCli(['changes', '--label', label, '--format', 'json'], {
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
  });
  assert.equal(code, 0, stderr);
  const points = JSON.parse(stdout).change_points;
  const at = (/** @type {string} */ figure) => points.filter((/** @type {any} */ c) => c.figure === figure);
  return { points, at };
}

test('changes names the layer a shift was put into: in the router, or behind it', async () => {
  for (const [label, layer, figure] of /** @type {const} */ ([
    ['router shift', 'router', 'gorouter_mean_ms'],
    ['behind shift', 'behind_router', 'behind_router_mean_ms'],
  ])) {
    const { points, at } = await changes(label);
    const [e2e] = at('e2e_mean_ms');
    assert.ok(e2e, `${label}: ${JSON.stringify(points)}`);
    assert.equal(e2e.run_id, runs[label][SHIFT_AT]);
    assert.equal(e2e.direction, 'regression');
    assert.equal(e2e.layer, layer);
    assert.deepEqual(Object.keys(e2e.layer_change_ms).sort(), ['behind_router', 'outside_router', 'router']);
    assert.ok(Math.abs(e2e.layer_change_ms[layer] - SHIFT_MS) < 0.1 * SHIFT_MS, `${label}: ${JSON.stringify(e2e)}`);
    const sum = Object.values(e2e.layer_change_ms).reduce((s, v) => s + Number(v), 0);
    close(sum, e2e.mean_after - e2e.mean_before, `${label}: the layers' changes add up to the e2e change`);
    // The router's response_time is the router and the app: its change is named by the one that moved.
    assert.deepEqual(
      at('router_mean_ms').map((/** @type {any} */ c) => [c.run_id, c.layer]),
      [[runs[label][SHIFT_AT], layer]],
    );
    assert.deepEqual(
      at(figure).map((/** @type {any} */ c) => [c.run_id, c.layer]),
      [[runs[label][SHIFT_AT], layer]],
    );
    assert.deepEqual(at('outside_router_mean_ms'), [], `${label}: the client side did not move`);
  }
});

test("migration 022's down leaves the views without its columns, grants kept; up brings them back", async () => {
  await db.query('CREATE DATABASE layers_down');
  await db.query(`CREATE ROLE layers_reader LOGIN PASSWORD 'reader'`);
  const pool = new pg.Pool({ connectionString: db.url.replace(/\/postgres$/, '/layers_down'), max: 2 });
  try {
    await migrate(pool, pino({ level: 'silent' }));
    const query = (/** @type {string} */ sql, /** @type {unknown[]} */ params = []) => pool.query(sql, params);
    const run = await seedLayeredRun(query, { start: new Date('2026-07-01T08:00:00Z'), seed: 5, requests: 200 });
    await query('GRANT SELECT ON run_summary, run_history TO layers_reader');
    /** @param {string} view */
    const columns = async (view) =>
      (
        await query(
          `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
           AND attname IN ('gorouter_mean_ms', 'behind_router_mean_ms') ORDER BY attname`,
          [view],
        )
      ).rows.map((r) => r.attname);
    const readable = async () =>
      (
        await query(
          `SELECT has_table_privilege('layers_reader', 'run_summary', 'SELECT') AND
                  has_table_privilege('layers_reader', 'run_history', 'SELECT') AS ok`,
        )
      ).rows[0].ok;
    await undoMigrationsFrom(pool, '022');
    assert.deepEqual(await columns('run_summary'), []);
    assert.deepEqual(await columns('run_history'), []);
    assert.equal(await readable(), true, 'the grants stay');
    const gone = await query(`SELECT to_regprocedure('run_summary_request_figures(bigint)') AS f`);
    assert.equal(gone.rows[0].f, null, "the view files before 022 create run_summary's function again");
    await migrate(pool, pino({ level: 'silent' }));
    assert.deepEqual(await columns('run_summary'), ['gorouter_mean_ms']);
    assert.deepEqual(await columns('run_history'), ['behind_router_mean_ms', 'gorouter_mean_ms']);
    assert.equal(await readable(), true, 'the grants stay');
    const want = /** @type {any} */ ((await expectedLayers(query, [run])).get(run));
    const { rows } = await query('SELECT gorouter_mean_ms FROM run_history WHERE run_id = $1', [run]);
    close(rows[0].gorouter_mean_ms, want.gt, 'gorouter mean after the way down and up');
  } finally {
    await pool.end();
  }
});
