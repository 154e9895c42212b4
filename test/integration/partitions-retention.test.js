// Time partitions (migration 012) and retention (paasmon prune): rows land in the partition of
// their day however far off it is, prune drops exactly the days before its limit and keeps the
// comparison of the runs it pruned, and a populated database migrates without losing a row or
// changing an answer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/sink/page-writer.js';
import { preparePartitions } from '../../exporters/postgres/schema/partitions.js';
import { startRetentionJob } from '../../collector/retention-job.js';
import { QUERIES_DIR, loadSqlQuery } from '../../exporters/postgres/queries/report.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { runMigrations } from '../support/migrations.js';
import { seedRun } from '../support/report-runs.js';
import { expandSql, loadDashboards, queriesOf } from '../support/grafana.js';

const silent = pino({ level: 'silent' });
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;

/** @param {string} sql @param {unknown[]} [params] */
const rowsOf = async (sql, params) => (await db.query(sql, params)).rows;
/** Where each row of a table is: partition name -> rows. @param {string} table */
const placement = async (table) =>
  Object.fromEntries(
    (await rowsOf(`SELECT tableoid::regclass::text AS p, count(*)::int AS n FROM ${table} GROUP BY 1`)).map((r) => [
      r.p,
      r.n,
    ]),
  );
const partitionNames = async () =>
  (await rowsOf('SELECT partition FROM paasmon_partitions() ORDER BY 1')).map((r) => r.partition);

/**
 * The report's query files (sql/queries) for these runs; before migration 012 with the router
 * record looked up as it was then (one argument).
 * @param {number[]} runIds @param {boolean} old
 */
async function queryAnswers(runIds, old) {
  /** @type {Record<string, unknown[]>} */
  const out = {};
  /** @type {Record<string, string>} */
  const variables = { runs: `{${runIds.join(',')}}`, trim: '0.1' };
  for (const file of fs.readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.sql'))) {
    const { text, parameters } = loadSqlQuery(file.slice(0, -4));
    const sql = old
      ? text.replaceAll('router_record(l.correlation_id, l.started_at)', 'router_record(l.correlation_id)')
      : text;
    out[file] = (
      await db.query(
        sql,
        parameters.map((p) => variables[p]),
      )
    ).rows;
  }
  return out;
}

/**
 * Numbers to 12 significant digits: a mean summed in another row order differs in its last bits.
 * @param {unknown} value @returns {unknown}
 */
const rounded = (value) =>
  typeof value === 'number'
    ? Number(value.toPrecision(12))
    : Array.isArray(value)
      ? value.map(rounded)
      : value && typeof value === 'object' && !(value instanceof Date)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]))
        : value;

/**
 * Every answer a populated database gives: rows of the tables, the views, the functions, the report's queries.
 * @param {number[]} runIds @param {boolean} [old] before migration 012
 */
async function answers(runIds, old = false) {
  const ids = `{${runIds.join(',')}}`;
  return rounded({
    router: await rowsOf('SELECT * FROM router_requests ORDER BY received_at, vcap_request_id, app_guid'),
    loadgen: await rowsOf('SELECT * FROM loadgen_requests ORDER BY run_id, correlation_id'),
    // The columns of migration 011 (020 adds `repeated`, NULL in every row before it).
    samples: await rowsOf(
      `SELECT ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, cpu_entitlement_percent,
        mem_bytes, mem_quota_bytes, disk_bytes, disk_quota_bytes, uptime_s
      FROM instance_samples ORDER BY app_guid, instance_index, ts`,
    ),
    // The columns of migration 011 (022 adds gorouter_mean_ms: test/integration/run-history-layers.test.js).
    runSummary: (await rowsOf('SELECT * FROM run_summary ORDER BY run_id')).map(
      ({ gorouter_mean_ms: _added, ...row }) => row,
    ),
    correlated: await rowsOf('SELECT * FROM correlated_requests ORDER BY run_id, correlation_id'),
    comparison: await rowsOf('SELECT * FROM run_comparison($1::bigint[]) ORDER BY run_id', [ids]),
    usage: await rowsOf(`SELECT * FROM app_usage('app-a', '2025-03-01', '2025-03-02') ORDER BY ts`),
    queries: await queryAnswers(runIds, old),
  });
}

before(async () => {
  db = await startTestDatabase();
  // The schema as it was before partitioning (migration 011), holding data of every kind.
  await runMigrations(db.pool, 'up', 11);
});

after(async () => {
  await db?.stop();
});

describe('partitions and retention', () => {
  /** @type {number[]} */
  const runIds = [];

  test('a database at migration 011 migrates keeping every row and every answer', async () => {
    for (const [label, start] of [
      ['old', '2025-03-01T10:00:00Z'],
      ['straddles', '2025-03-01T23:58:00Z'],
    ]) {
      const spec = { label, app: 'app-a', instances: 2, coresPerInstance: 1, cpuPolls: [40, 60] };
      runIds.push(await seedRun(db.query, { ...spec, start: new Date(start), spanS: 240, successful: 500 }));
    }
    await db.query(
      `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, tool)
      VALUES ($1, 'imported-1', '2025-03-01T10:01:00Z', 12.5, 200, 'k6')`,
      [runIds[0]],
    );
    const beforeMigration = /** @type {any} */ (await answers(runIds, true));
    assert.ok(beforeMigration.router.length >= 1000 && beforeMigration.samples.length > 0);

    const applied = await migrate(db.pool, silent);
    assert.ok(applied.some((name) => name.startsWith('012_')));
    assert.equal(
      (await rowsOf(`SELECT relkind FROM pg_class WHERE relname = 'router_requests'`))[0].relkind,
      'p',
      'router_requests is partitioned',
    );
    assert.deepEqual(await answers(runIds), beforeMigration);
    // Each day's rows in that day's partition, none left in the default one.
    assert.deepEqual(await placement('router_requests'), {
      router_requests_p20250301: (
        await rowsOf(`SELECT count(*)::int AS n FROM router_requests
        WHERE received_at < '2025-03-02'`)
      )[0].n,
      router_requests_p20250302: (
        await rowsOf(`SELECT count(*)::int AS n FROM router_requests
        WHERE received_at >= '2025-03-02'`)
      )[0].n,
    });
  });

  test('rows far in the past and the future land in partitions of their own day', async () => {
    const writePage = createPageWriter(db.pool);
    const router = (/** @type {string} */ at, /** @type {string} */ id) => ({
      kind: 'router_request',
      receivedAt: at,
      appName: 'app-b',
      vcapRequestId: id,
      correlationId: id,
      status: 200,
      responseTimeMs: 3,
    });
    const page = [router('1970-01-02T03:04:05.000000Z', 'past'), router('2099-12-31T23:59:59.999999Z', 'future')];
    // Encoded rows (router-log ingest, the load generator) and plain records (instance samples).
    await writePage({ kind: 'router_request', records: [], encoded: encodeRecords('router_request', page, 2) });
    const sample = {
      kind: 'instance_sample',
      ts: new Date('1999-06-30T12:00:00Z'),
      appGuid: 'g',
      appName: 'app-b',
      processType: 'web',
      instanceIndex: 0,
      state: 'RUNNING',
    };
    await writePage({ kind: 'instance_sample', records: [/** @type {any} */ (sample)] });
    const placed = await rowsOf(`SELECT vcap_request_id, tableoid::regclass::text AS p FROM router_requests
      WHERE app_name = 'app-b' ORDER BY 1`);
    assert.deepEqual(placed, [
      { vcap_request_id: 'future', p: 'router_requests_p20991231' },
      { vcap_request_id: 'past', p: 'router_requests_p19700102' },
    ]);
    assert.deepEqual(await placement(`instance_samples WHERE app_name = 'app-b'`), {
      instance_samples_p19990630: 1,
    });
    // Written again: nothing twice.
    await writePage({ kind: 'router_request', records: /** @type {any[]} */ (page) });
    assert.equal((await rowsOf(`SELECT count(*)::int AS n FROM router_requests WHERE app_name = 'app-b'`))[0].n, 2);

    // A row no writer announced (a direct INSERT) is taken by the default partition, then settled.
    await db.query(
      `INSERT INTO router_requests (received_at, vcap_request_id, app_name) VALUES ('1980-05-05T05:05Z', 'd', 'app-b')`,
    );
    assert.deepEqual(await placement(`router_requests_default`), { router_requests_default: 1 });
    await preparePartitions(db.pool);
    assert.deepEqual(await placement(`router_requests WHERE vcap_request_id = 'd'`), {
      router_requests_p19800505: 1,
    });
    assert.deepEqual(await placement(`router_requests_default`), {});
  });

  test('prune --dry-run changes nothing', async () => {
    const partitions = await partitionNames();
    const env = { DATABASE_URL: db.url };
    const result = await runCli(['prune', '--before', '2025-03-02T12:00:00Z', '--dry-run'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /would drop \d+ partitions/);
    assert.deepEqual(await partitionNames(), partitions);
    assert.equal((await rowsOf('SELECT count(*)::int AS n FROM run_prunes'))[0].n, 0);
  });

  test('prune drops the days before the limit, nothing of a newer run; the report still compares the run', async () => {
    const env = { DATABASE_URL: db.url };
    const { comparison } = /** @type {any} */ (await answers(runIds));
    // The limit falls inside the second run (23:58 on 1 March to 00:02 on 2 March): it moves back to
    // that run's day, so only the days before 1 March go.
    const result = await runCli(['prune', '--before', '2025-03-02T00:01:00Z'], env);
    assert.equal(result.code, 0, result.stderr);
    const left = await partitionNames();
    assert.ok(!left.some((p) => /_p(1970|1980|1999)/.test(p)), left.join(' '));
    assert.ok(left.includes('router_requests_p20250301') && left.includes('loadgen_requests_p20250301'));
    assert.deepEqual((await rowsOf('SELECT run_id FROM run_prunes')).length, 0);

    // Now past both runs: 1 and 2 March go, the runs keep their figures and say so.
    const second = await runCli(['prune', '--before', '2025-03-03T00:00:00Z'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /dropped 6 partitions \(2 days before 2025-03-03T00:00:00\.000Z/);
    const gone = await partitionNames();
    assert.ok(!gone.some((p) => p.includes('_p202503')), gone.join(' '));
    assert.ok(gone.includes('router_requests_p20991231'), 'a newer day stays');
    assert.equal(
      (await rowsOf('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = ANY ($1)', [runIds]))[0].n,
      0,
    );
    assert.deepEqual(
      (await rowsOf('SELECT run_id FROM run_prunes ORDER BY 1')).map((r) => Number(r.run_id)),
      runIds,
    );

    const report = await runCli(['report', '--runs', runIds.join(','), '--format', 'json'], env);
    assert.equal(report.code, 0, report.stderr);
    const rows = JSON.parse(report.stdout).runs;
    assert.deepEqual(
      rows.map((/** @type {any} */ r) => r.requests),
      comparison.map((/** @type {any} */ r) => Number(r.requests)),
      'the stored request counts, not zero',
    );
    const today = new Date().toISOString().slice(0, 10);
    assert.match(report.stderr, new RegExp(`run ${runIds[0]}: raw rows pruned on ${today}; percentiles as stored`));
    const table = await runCli(['report', '--runs', runIds.join(',')], env);
    assert.match(table.stdout, new RegExp(`run ${runIds[1]}: raw rows pruned on ${today}; percentiles as stored`));

    // The runs dashboard still compares the pruned runs, from their stored figures, and says so.
    const dashboardRows = async (/** @type {string} */ panel) => {
      const query = queriesOf(loadDashboards()['runs.json']).find((q) => q.where === `paasmon-runs panel "${panel}" A`);
      const range = { from: new Date('2025-02-28T00:00:00Z'), to: new Date('2025-03-03T00:00:00Z'), interval: '1m' };
      const variables = { run: { values: runIds.map(String), multi: true } };
      return rowsOf(expandSql(/** @type {any} */ (query).text, { ...range, variables }));
    };
    for (const panel of ['Runs', 'Selected runs']) {
      const shown = (await dashboardRows(panel)).sort((a, b) => a.label.localeCompare(b.label));
      const stored = [...comparison].sort((a, b) => a.label.localeCompare(b.label));
      assert.deepEqual(
        shown.map((r) => [r.label, Number(r.requests), rounded(r.e2e_p95_ms), r.raw_rows_pruned_on]),
        stored.map((r) => [r.label, Number(r.requests), r.e2e_p95_ms, today]),
        `${panel}: the stored figures of the pruned runs`,
      );
    }

    // Deleting a pruned run still works, and takes its stored figures along.
    await db.query('DELETE FROM test_runs WHERE id = $1', [runIds[0]]);
    assert.equal((await rowsOf('SELECT count(*)::int AS n FROM run_figures WHERE run_id = $1', [runIds[0]]))[0].n, 0);
  });
  test('prune stores the figures again of a run whose stored figures went stale, before dropping its rows', async () => {
    const env = { DATABASE_URL: db.url };
    const spec = { label: 'late', app: 'app-d', instances: 1, coresPerInstance: 1, cpuPolls: [50] };
    const runId = await seedRun(db.query, {
      ...spec,
      start: new Date('2025-04-01T10:00:00Z'),
      spanS: 240,
      successful: 400,
    });
    const requestsOf = async () => {
      const report = await runCli(['report', '--runs', String(runId), '--format', 'json'], env);
      assert.equal(report.code, 0, report.stderr);
      return Number(JSON.parse(report.stdout).runs[0].requests);
    };
    const stored = await requestsOf();
    await rowsOf('SELECT refresh_run_figures($1, $2)', [runId, '{0.1}']);
    assert.equal((await rowsOf('SELECT stale FROM run_figures WHERE run_id = $1', [runId]))[0].stale, false);
    // Late rows in the middle of the run (an import after it ended): the stored figures are stale.
    await db.query(
      `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, tool)
      SELECT $1, 'late-' || i, '2025-04-01T10:02:00Z'::timestamptz + i * interval '1 ms', 5, 200, 'k6'
      FROM generate_series(1, 7) i`,
      [runId],
    );
    const result = await runCli(['prune', '--before', '2025-04-03T00:00:00Z'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await rowsOf('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId]))[0].n, 0);
    assert.equal(await requestsOf(), stored + 7, 'the figures of every row, the late ones included');
  });

  test("collect's upkeep round prunes by RETENTION and keeps newer days", async () => {
    await db.query(`INSERT INTO router_requests (received_at, vcap_request_id, app_name)
      VALUES ('1975-01-01T00:00Z', 'old', 'app-c'), (now(), 'new', 'app-c')`);
    const job = startRetentionJob(db.pool, 365 * 86_400_000, silent, Promise.resolve(true));
    await job.stop();
    const left = await partitionNames();
    assert.ok(!left.includes('router_requests_p19750101'), left.join(' '));
    assert.ok(left.includes('router_requests_p20991231'), left.join(' '));
    assert.deepEqual(
      (await rowsOf(`SELECT vcap_request_id FROM router_requests WHERE app_name = 'app-c'`)).map(
        (r) => r.vcap_request_id,
      ),
      ['new'],
    );
  });
});
