// What a command's start and a prune spend their time on: migrate of a database whose migrations
// are all applied leaves node-pg-migrate's runner alone (it would read every migration file to
// find nothing to do) and still applies sql/views; prune settles the default partitions no second
// time (its caller's migrate or upkeep round did) and reports how long each of its steps took.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import pg from 'pg';
import pino from 'pino';
import { MIGRATE_LOCK_ID, MIGRATIONS_DIR, migrate } from '../../exporters/postgres/schema/migrate.js';
import { prune } from '../../exporters/postgres/schema/retention.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { runMigrations } from '../support/migrations.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
before(async () => {
  db = await startTestDatabase();
});
after(async () => {
  await db?.stop();
});

/** A logger at debug whose entries are kept. */
function keptLog() {
  /** @type {any[]} */
  const entries = [];
  const log = pino({ level: 'debug' }, { write: (line) => entries.push(JSON.parse(line)) });
  return { log, entries };
}

/**
 * The pool with every statement it (and its clients) ran written down.
 * @param {import('pg').Pool} pool @param {string[]} statements
 * @returns {import('pg').Pool}
 */
function recorded(pool, statements) {
  const note = (/** @type {any} */ target) => {
    const query = target.query.bind(target);
    return (/** @type {any} */ sql, /** @type {any[]} */ ...rest) => {
      statements.push(typeof sql === 'string' ? sql : sql.text);
      return query(sql, ...rest);
    };
  };
  return /** @type {any} */ ({
    query: note(pool),
    connect: async () => {
      const client = await pool.connect();
      return new Proxy(client, { get: (c, key) => (key === 'query' ? note(c) : Reflect.get(c, key)) });
    },
    // What the pool can give (the report's figures are computed on more than one connection).
    options: pool.options,
    get totalCount() {
      return pool.totalCount;
    },
    get idleCount() {
      return pool.idleCount;
    },
  });
}

test('migrate takes the same advisory lock as node-pg-migrate (and earlier releases)', () => {
  assert.equal(MIGRATE_LOCK_ID, String(PG_MIGRATE_LOCK_ID));
});

test('migrate of an up-to-date database runs no migration runner, and still puts the views back', async () => {
  const first = keptLog();
  await migrate(db.pool, first.log);
  assert.ok(first.entries.some((e) => e.msg === 'migrate' && /MIGRATION 001_schema/.test(e.migration)));

  await db.query(
    'CREATE OR REPLACE FUNCTION student_t_975(df integer) RETURNS double precision ' +
      'LANGUAGE sql IMMUTABLE AS $$ SELECT 0::double precision $$',
  );
  const again = keptLog();
  assert.deepEqual(await migrate(db.pool, again.log), []);
  assert.deepEqual(
    again.entries.filter((e) => e.msg === 'migrate').map((e) => e.migration),
    [],
    "the runner's log: it did not run",
  );
  assert.equal((await db.query('SELECT student_t_975(1) AS t')).rows[0].t, 12.706205, 'the view file applied');

  // A database of an earlier release, its last migration not applied yet: the runner applies it.
  await db.query('CREATE DATABASE earlier');
  const earlier = new pg.Pool({ connectionString: db.url.replace(/\/postgres$/, '/earlier'), max: 2 });
  try {
    const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
    await runMigrations(earlier, 'up', files.length - 1);
    const applied = await migrate(earlier, pino({ level: 'silent' }));
    assert.deepEqual(applied, [
      files
        .sort()
        .at(-1)
        ?.replace(/\.sql$/, ''),
    ]);
  } finally {
    await earlier.end();
  }
});

test('prune settles no partition itself, stores the figures first and reports the ms of each step', async () => {
  await migrate(db.pool, pino({ level: 'silent' }));
  const runId = await seedRun(db.query, {
    label: 'old',
    app: 'app-a',
    instances: 1,
    coresPerInstance: 1,
    cpuPolls: [50],
    start: new Date('2025-05-01T10:00:00Z'),
    spanS: 120,
    successful: 300,
  });
  /** @type {string[]} */
  const statements = [];
  const { log, entries } = keptLog();
  const result = await prune(recorded(db.pool, statements), {
    before: new Date('2025-05-03T00:00:00Z'),
    trim: 0.1,
    log,
  });
  assert.ok(result.dropped && result.runIds.includes(runId));
  assert.ok(!statements.some((sql) => /paasmon_(settle|ensure)_partitions/.test(sql)), statements.join('\n'));
  const storing = statements.findIndex((sql) => /refresh_run_figures/.test(sql));
  const dropping = statements.findIndex((sql) => /paasmon_drop_partitions/.test(sql));
  assert.ok(storing >= 0 && storing < dropping, 'the figures stored before any partition goes');
  assert.deepEqual(Object.keys(result.steps), ['plan', 'figures', 'drop', 'commit']);
  for (const ms of Object.values(result.steps)) assert.ok(Number.isFinite(ms) && ms >= 0, String(ms));
  assert.deepEqual(entries.find((e) => e.msg === 'prune steps')?.steps, result.steps);
});

test('paasmon prune at LOG_LEVEL=debug logs the steps of migrate and of the prune', async () => {
  await seedRun(db.query, {
    label: 'older',
    app: 'app-b',
    instances: 1,
    coresPerInstance: 1,
    cpuPolls: [50],
    start: new Date('2025-06-01T10:00:00Z'),
    spanS: 60,
    successful: 100,
  });
  const result = await runCli(['prune', '--before', '2025-06-03T00:00:00Z'], {
    DATABASE_URL: db.url,
    LOG_LEVEL: 'debug',
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^dropped \d+ partitions/);
  const logged = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const steps = Object.fromEntries(logged.filter((e) => e.steps).map((e) => [e.msg, Object.keys(e.steps)]));
  // A command's start does no partition upkeep (prune prepares the partitions itself, not a step of migrate).
  assert.deepEqual(steps, {
    'migrate steps': ['migrations', 'views'],
    'prune steps': ['plan', 'figures', 'drop', 'commit'],
  });
});
