// Views and SQL functions live in sql/views/ and are applied on every migrate, after the numbered
// migrations, in their transaction. A database built by the migrations of an earlier release (010,
// 011: only those files, as that release's migrate applied them) upgrades without losing a row,
// and every view, function and report query answers as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { MIGRATIONS_DIR, migrate } from '../../exporters/postgres/schema/migrate.js';
import { loadSqlQuery } from '../../exporters/postgres/queries/report.js';
import { startTestDatabase } from '../support/database.js';
import { runMigrations } from '../support/migrations.js';
import { seedRun } from '../support/report-runs.js';

const silent = pino({ level: 'silent' });
const MIGRATIONS = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).length;
const TABLES = ['test_runs', 'loadgen_requests', 'router_requests', 'instance_samples', 'ingest_checkpoints'];
const REPORT_QUERIES = ['run_comparison', 'errors', 'instance_series', 'paths', 'latency_breakdown', 'rounds'];
const REPORT_QUERIES_MORE = ['cpu_efficiency', 'cpu_utilisation', 'scaling_series', 'stability'];

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
before(async () => {
  db = await startTestDatabase();
});
after(async () => {
  await db?.stop();
});

/** A pool on another database of the test server. @param {string} name */
async function databasePool(name) {
  await db.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ connectionString: db.url.replace(/\/postgres$/, `/${name}`), max: 2 });
  pool.on('error', () => {});
  return pool;
}

/** The migrations up to `count` only, as the release that had no sql/views applied them. */
async function migrateOld(/** @type {pg.Pool} */ pool, /** @type {number} */ count) {
  await runMigrations(pool, 'up', count);
}

/** Runs of every kind: errors and timeouts, no router records, a request logged twice by the router. */
async function seed(/** @type {pg.Pool} */ pool, /** @type {boolean} */ withTool) {
  const query = (/** @type {string} */ sql, /** @type {unknown[]} */ params = []) => pool.query(sql, params);
  const base = Date.parse('2026-04-01T10:00:00Z');
  const spec = { app: 'shop', implementation: 'java', instances: 2, coresPerInstance: 1, spanS: 60 };
  const durationSql = '1 + (i * 37 % 100) / 7.0';
  const ids = [
    await seedRun(query, {
      ...spec,
      label: 'a',
      parallel: 2,
      start: new Date(base),
      successful: 900,
      durationSql,
      serverErrors: 20,
      timeouts: 5,
      cpuPolls: [80, 120],
    }),
    await seedRun(query, {
      ...spec,
      label: 'a',
      parallel: 4,
      start: new Date(base + 600_000),
      successful: 500,
      durationSql,
      cpuPolls: [150],
    }),
    await seedRun(query, { ...spec, label: 'b', start: new Date(base + 1_200_000), successful: 300, router: false }),
  ];
  // A second router record of one request (the app forwarded the header): the first must count.
  await query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, app_index, path, status, response_time_ms,
       gorouter_time_ms, vcap_request_id, correlation_id)
     SELECT received_at + interval '1 millisecond', app_guid, app_name, 1, '/inner', 200, 0.5, 0.1, 'nested',
            correlation_id
     FROM router_requests WHERE correlation_id = $1`,
    [`${ids[0]}-7`],
  );
  await query(`INSERT INTO ingest_checkpoints (source, position) VALUES ('file:/x.log', '1234')`);
  if (withTool) {
    await query(
      `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, tool, method, url, bytes)
       VALUES ($1, 'row-1-abc', '2026-04-01T10:20:30Z', 12.5, 200, 'jmeter', 'GET', 'http://shop/', 512)`,
      [ids[2]],
    );
  }
  return ids;
}

/** Every row of every table, and the answer of every view, function and report query. */
async function snapshot(/** @type {pg.Pool} */ pool, /** @type {number[]} */ ids) {
  const runs = `{${ids.join(',')}}`;
  /** @type {Record<string, unknown[]>} */
  const answers = {};
  for (const table of TABLES) answers[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3`)).rows;
  const q = async (/** @type {string} */ sql, /** @type {unknown[]} */ params = []) =>
    (await pool.query(sql, params)).rows;
  answers.run_summary = await q('SELECT * FROM run_summary ORDER BY run_id');
  answers.correlated_requests = await q('SELECT * FROM correlated_requests ORDER BY run_id, correlation_id');
  answers.run_comparison = await q('SELECT * FROM run_comparison($1::bigint[], 0)', [runs]);
  answers.steady_windows = await q('SELECT * FROM steady_windows($1::bigint[]) ORDER BY run_id', [runs]);
  answers.app_usage = await q(`SELECT * FROM app_usage('shop', '2026-04-01T09:00Z', '2026-04-01T12:00Z') ORDER BY ts`);
  answers.router_record = await q(`SELECT * FROM router_record($1)`, [`${ids[0]}-7`]);
  answers.student_t_975 = await q('SELECT student_t_975(df) FROM generate_series(0, 40) df');
  // Before migration 012 the router record was looked up by its id alone (one argument).
  const { rows: lookups } = await pool.query(
    `SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'router_record' AND pronargs = 2`,
  );
  for (const name of [...REPORT_QUERIES, ...REPORT_QUERIES_MORE]) {
    const { text, parameters } = loadSqlQuery(name);
    const sql = lookups[0].n
      ? text
      : text.replaceAll('router_record(l.correlation_id, l.started_at)', 'router_record(l.correlation_id)');
    const values = /** @type {Record<string, string>} */ ({ runs, trim: '0.1' });
    answers[`sql/queries/${name}`] = (
      await pool.query(
        sql,
        parameters.map((p) => values[p]),
      )
    ).rows;
  }
  return answers;
}

/**
 * Equal, numbers to 1e-12 relative (sums over the same rows taken in another order); a column a
 * later migration added may only be NULL in the old rows.
 */
function assertSameAnswers(/** @type {any} */ actual, /** @type {any} */ expected, /** @type {string} */ where) {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = 1e-12 * Math.max(1, Math.abs(expected));
    assert.ok(Math.abs(actual - expected) <= tolerance, `${where}: ${actual} != ${expected}`);
  } else if (expected && typeof expected === 'object' && !(expected instanceof Date)) {
    const added = Object.keys(actual ?? {}).filter((key) => !(key in expected));
    for (const key of added) assert.equal(actual[key], null, `${where}.${key}: a new column`);
    assert.deepEqual(
      Object.keys(expected).filter((key) => !(key in (actual ?? {}))),
      [],
      `${where}: lost keys`,
    );
    for (const key of Object.keys(expected)) assertSameAnswers(actual[key], expected[key], `${where}.${key}`);
  } else {
    assert.deepEqual(actual, expected, where);
  }
}

/**
 * The answers without the figures a later release computes from the same rows, each checked first
 * against the same figure elsewhere: run_summary's gorouter_mean_ms (022) is run_comparison's over the whole run.
 * @param {any} answers
 */
function withoutNewFigures(answers) {
  for (const row of answers.run_summary) {
    const whole = answers.run_comparison.find((/** @type {any} */ r) => r.run_id === row.run_id);
    assertSameAnswers(row.gorouter_mean_ms, whole.gorouter_mean_ms, `run ${row.run_id}: run_summary gorouter mean`);
    delete row.gorouter_mean_ms;
  }
  return answers;
}

for (const [release, count] of /** @type {const} */ ([
  ['010', 10],
  ['011', 11],
])) {
  test(`a database at migration ${release} with data upgrades without loss, every view answering as before`, async () => {
    const pool = await databasePool(`at_${release}`);
    try {
      await migrateOld(pool, count);
      const ids = await seed(pool, count >= 11);
      // Parsed as the migrate of that release left them: text of numeric and float columns compared as numbers.
      const before = JSON.parse(JSON.stringify(await snapshot(pool, ids)));
      await migrate(pool, silent);
      const afterUpgrade = withoutNewFigures(JSON.parse(JSON.stringify(await snapshot(pool, ids))));
      assertSameAnswers(afterUpgrade, before, release);
      // The definitions are sql/views' now.
      const { rows } = await pool.query(`SELECT pg_get_viewdef('run_summary') AS definition`);
      assert.match(rows[0].definition, /run_summary_request_figures/);
      // Migrating again changes nothing.
      await migrate(pool, silent);
      assertSameAnswers(
        withoutNewFigures(JSON.parse(JSON.stringify(await snapshot(pool, ids)))),
        before,
        `${release} again`,
      );
    } finally {
      await pool.end();
    }
  });
}

test('two processes migrating a new database at once both succeed, one after the other', async () => {
  const first = await databasePool('together');
  const pools = [first, new pg.Pool({ connectionString: db.url.replace(/\/postgres$/, '/together'), max: 2 })];
  try {
    const applied = await Promise.all(pools.map((pool) => migrate(pool, silent)));
    assert.deepEqual(
      applied.map((names) => names.length).sort((a, b) => a - b),
      [0, MIGRATIONS],
    );
    const { rows } = await pools[0].query('SELECT count(*)::int AS n FROM run_summary');
    assert.equal(rows[0].n, 0);
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
});

test('a view changed by hand is put back to its sql/views definition by the next migrate', async () => {
  const pool = await databasePool('changed');
  try {
    await migrate(pool, silent);
    await pool.query(
      'CREATE OR REPLACE FUNCTION student_t_975(df integer) RETURNS double precision ' +
        'LANGUAGE sql IMMUTABLE AS $$ SELECT 0::double precision $$',
    );
    await migrate(pool, silent);
    const { rows } = await pool.query('SELECT student_t_975(1) AS t');
    assert.equal(rows[0].t, 12.706205);
  } finally {
    await pool.end();
  }
});

test('a view file the database refuses fails the migrate naming the file, and nothing of it stays', async () => {
  const pool = await databasePool('refused');
  try {
    // A function of a user's, in the way of one of sql/views with another result type.
    await pool.query(
      'CREATE FUNCTION run_request_figures(bigint, timestamptz, timestamptz, boolean, bigint) RETURNS integer ' +
        'LANGUAGE sql AS $$ SELECT 1 $$',
    );
    await assert.rejects(migrate(pool, silent), (/** @type {any} */ err) => {
      assert.equal(err.name, 'MigrationError');
      assert.match(err.message, /^postgres: sql\/views\/15_run_request_figures\.sql failed: .*\(SQLSTATE 42P13\)$/);
      return true;
    });
    // One transaction: the numbered migrations before it are not recorded either.
    const { rows } = await pool.query(`SELECT to_regclass('paasmon_migrations') AS t, to_regclass('test_runs') AS r`);
    assert.deepEqual(rows, [{ t: null, r: null }]);
  } finally {
    await pool.end();
  }
});
