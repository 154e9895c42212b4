// A run's figures are written when its data changes and only read by reports: a one-run report
// does no partition upkeep and writes nothing (it runs under a role whose every transaction is read
// only), reads the same rows of the big tables however many rows other runs have, and the figures
// are fresh again after late rows land in the run's window (collect's upkeep), after a prune and
// after an import (whose partitions it leaves analyzed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
import { loadReportData } from '../../exporters/postgres/queries/report.js';
import { preparePartitions } from '../../exporters/postgres/schema/partitions.js';
import { prune } from '../../exporters/postgres/schema/retention.js';
import { refreshRunFigures, staleRuns } from '../../exporters/postgres/schema/run-figures.js';
import { runCli } from '../support/cli.js';
import { countersAcross, startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';
import { gorouterLine } from '../support/router-docs.js';

const silent = pino({ level: 'silent' });
const DAY_MS = 86_400_000;
/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-figures-'));
let day = 0;

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, silent);
});
after(async () => {
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An ended run of 20 s on a day of its own, its figures kept as `run stop` keeps them. */
async function keptRun(successful = 300) {
  const runId = await seedRun(db.query, {
    label: `run ${day}`,
    app: 'shop',
    instances: 1,
    coresPerInstance: 1,
    start: new Date(Date.parse('2026-03-01T10:00:00Z') + day++ * DAY_MS),
    spanS: 20,
    successful,
    serverErrors: 2,
    durationSql: '2 + (i % 13)',
    cpuPolls: [30],
  });
  assert.deepEqual(await refreshRunFigures(db.pool, [runId], [0.1]), [runId]);
  return runId;
}

/** @param {number} runId */
const figuresRow = async (runId) =>
  (await db.query('SELECT stale, computed_at, figures::text AS figures FROM run_figures WHERE run_id = $1', [runId]))
    .rows[0];

const BIG_TABLES = `relname ~ '^(router_requests|loadgen_requests|instance_samples)'`;

/**
 * What reading a run's report data adds to the counters of this session: rows read from the big
 * tables (sequential and index fetches), and rows written anywhere.
 * @param {number} runId @param {boolean} recompute
 */
async function readCost(runId, recompute) {
  const { added } = await countersAcross(
    db.pool,
    `SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)) FILTER (WHERE ${BIG_TABLES}), 0) AS rows_read,
            coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS rows_written
     FROM pg_stat_xact_user_tables`,
    [],
    async (client) => {
      // Parallel workers count their reads in their own statistics, not this session's.
      await client.query('SET LOCAL max_parallel_workers_per_gather = 0');
      return client.query('SELECT stored FROM run_figures_read($1, 0.1, $2)', [runId, recompute]);
    },
  );
  return added;
}

test('a one-run report under a role that may only read: no partition upkeep, nothing written', async () => {
  const runId = await keptRun();
  // A row that reached the default partition: the upkeep of a command's start would move it.
  await db.query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, status, response_time_ms, vcap_request_id)
     VALUES ('2031-01-01T00:00:00Z', 'g', 'elsewhere', 200, 1, 'in-default')`,
  );
  await db.query(`CREATE ROLE figures_reader LOGIN PASSWORD 'reader'`);
  await db.query('GRANT SELECT ON ALL TABLES IN SCHEMA public TO figures_reader');
  await db.query('ALTER ROLE figures_reader SET default_transaction_read_only = on');
  const before = await figuresRow(runId);
  const kept = JSON.parse(before.figures).find((/** @type {any} */ f) => f.trim === 0.1).data.runs[0].requests;
  const url = db.url.replace('paasmon:test-password', 'figures_reader:reader');
  const result = await runCli(['report', '--runs', String(runId), '--format', 'json'], {
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).runs[0].requests, kept);
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM router_requests_default WHERE vcap_request_id = 'in-default'`,
  );
  assert.equal(rows[0].n, 1, 'the default partition kept its row');
  assert.deepEqual(await figuresRow(runId), before);
  // The figures of a run not kept yet are computed for the reader, and not stored by it.
  await db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
  const again = await runCli(['report', '--runs', String(runId), '--format', 'json'], { DATABASE_URL: url });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).runs[0].requests, kept);
  assert.equal((await figuresRow(runId)).stale, true);
});

test("a run's report reads the same rows whatever other runs' rows the database holds", async () => {
  const runId = await keptRun(2000);
  // Its rows in the partitions of their day, as collect's or migrate's upkeep leaves them.
  await migrate(db.pool, silent);
  await refreshRunFigures(db.pool, [runId], [0.1]);
  const stored = await readCost(runId, false);
  const computed = await readCost(runId, true);
  assert.deepEqual(stored, { rows_read: 0, rows_written: 0 });
  assert.ok(computed.rows_read >= 2002, JSON.stringify(computed));
  assert.equal(computed.rows_written, 0);
  // Other runs with 50 times as many rows, on other days, written with SQL, then settled by migrate.
  for (let i = 0; i < 2; i++) {
    await seedRun(db.query, {
      label: 'other',
      app: 'shop',
      start: new Date(Date.parse('2026-02-01T10:00:00Z') + i * DAY_MS),
      spanS: 600,
      successful: 50_000,
      cpuPolls: [10],
    });
  }
  await migrate(db.pool, silent);
  await refreshRunFigures(db.pool, [runId], [0.1]);
  assert.deepEqual(await readCost(runId, false), stored);
  // Computed again: within what the planner's new estimates change (how far it counts the run's rows).
  const again = await readCost(runId, true);
  assert.equal(again.rows_written, 0);
  assert.ok(Math.abs(again.rows_read - computed.rows_read) <= 0.01 * computed.rows_read, JSON.stringify(again));
});

test('late rows in the run window make its figures stale until the upkeep stores them again', async () => {
  const runId = await keptRun();
  const { rows } = await db.query('SELECT started_at, ended_at FROM test_runs WHERE id = $1', [runId]);
  const writePage = createPageWriter(db.pool);
  /** @param {Date} at @param {string} id */
  const routerPage = (at, id) =>
    writePage({
      kind: 'router_request',
      records: [
        /** @type {import('../../core/types.js').RouterRequest} */ ({
          kind: 'router_request',
          receivedAt: at.toISOString(),
          appGuid: 'guid-shop',
          appName: 'shop',
          status: 200,
          responseTimeMs: 1,
          vcapRequestId: id,
          correlationId: `${runId}-7`,
        }),
      ],
    });
  // Two hours after its end: outside the window, nothing the run's figures read.
  await routerPage(new Date(rows[0].ended_at.getTime() + 7_200_000), 'far');
  assert.equal((await figuresRow(runId)).stale, false);
  const before = (await loadReportData(db.pool, [runId], { trim: 0 })).runs[0];
  // A second record of a request the router logged already: the first one counts, the mean is not changed.
  await routerPage(new Date(rows[0].started_at.getTime() + 1000), 'late');
  assert.equal((await figuresRow(runId)).stale, true);
  assert.deepEqual((await loadReportData(db.pool, [runId], { trim: 0.1 })).stored, []);
  assert.ok((await staleRuns(db.pool, { quietMs: 0, limit: 100 })).includes(runId));
  assert.ok(!(await staleRuns(db.pool, { quietMs: 60_000, limit: 100 })).includes(runId), 'not quiet yet');
  assert.deepEqual(await refreshRunFigures(db.pool, [runId], [0.1]), [runId]);
  const after = await loadReportData(db.pool, [runId], { trim: 0 });
  assert.deepEqual(after.stored, [runId]);
  assert.equal(after.runs[0].router_records, before.router_records);
  // A late request of the run, inside its window, counts once its figures are stored again.
  await db.query(
    `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status)
     VALUES ($1, 'late', $2, 1, 200)`,
    [runId, new Date(rows[0].started_at.getTime() + 5000)],
  );
  assert.equal((await figuresRow(runId)).stale, true);
  await refreshRunFigures(db.pool, [runId], [0.1]);
  const summary = (await db.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId])).rows[0];
  assert.equal(Number(summary.requests), 303);
  assert.equal((await loadReportData(db.pool, [runId], { trim: 0 })).runs[0].requests, 303);
});

test('an ingest of late router logs into an ended run stores its figures again at its end', async () => {
  const runId = await seedRun(db.query, {
    label: 'late logs',
    app: 'shop',
    start: new Date(Date.parse('2026-03-01T10:00:00Z') + day++ * DAY_MS),
    spanS: 20,
    successful: 50,
    router: false,
  });
  await refreshRunFigures(db.pool, [runId], [0.1]);
  const { rows } = await db.query(
    `SELECT correlation_id, (extract(epoch FROM started_at) * 1e6)::bigint AS us FROM loadgen_requests
     WHERE run_id = $1 ORDER BY started_at LIMIT 30`,
    [runId],
  );
  const lines = rows.map((row, i) =>
    gorouterLine({
      app: 'shop',
      appGuid: 'guid-shop',
      appIndex: 0,
      path: '/api',
      status: 200,
      receivedUs: Number(row.us) + 500,
      responseUs: 2000,
      gorouterUs: 100,
      vcapRequestId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      id: row.correlation_id,
    }),
  );
  const file = path.join(dir, 'late.log');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const result = await runCli(['ingest', '--file', file, '--app', 'shop'], { DATABASE_URL: db.url });
  assert.equal(result.code, 0, result.stderr);
  assert.equal((await figuresRow(runId)).stale, false);
  const data = await loadReportData(db.pool, [runId], { trim: 0 });
  assert.deepEqual(data.stored, [runId]);
  assert.equal(data.runs[0].router_records, 30);
});

test('a pruned run keeps the figures it had, stored by the prune', async () => {
  const runId = await keptRun();
  await db.query('UPDATE run_figures SET stale = true WHERE run_id = $1', [runId]);
  const summaryOf = async () =>
    (await db.query('SELECT requests, e2e_p95_ms, router_p95_ms FROM run_summary WHERE run_id = $1', [runId])).rows[0];
  const before = await summaryOf();
  /** @type {Record<number, number>} */
  const requests = {};
  for (const trim of [0.1, 0.2])
    requests[trim] = (await loadReportData(db.pool, [runId], { trim, recompute: true })).runs[0].requests;
  const { rows } = await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [runId]);
  await preparePartitions(db.pool);
  const result = await prune(db.pool, { before: new Date(rows[0].ended_at.getTime() + DAY_MS), trim: 0.2 });
  assert.equal(result.dropped, true);
  assert.ok(result.runIds.includes(runId));
  const { rows: left } = await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId]);
  assert.equal(left[0].n, 0);
  assert.deepEqual(await summaryOf(), before);
  assert.equal(Number(before.requests), 302);
  for (const trim of [0.1, 0.2]) {
    const data = await loadReportData(db.pool, [runId], { trim, recompute: true });
    assert.deepEqual(data.stored, [runId]);
    assert.equal(data.runs[0].requests, requests[trim], String(trim));
  }
});

test('an import leaves its run figures stored and its partitions analyzed', async () => {
  const t0 = Date.parse('2029-07-04T12:00:00Z');
  const lines = ['timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,bytes,URL'];
  for (let i = 0; i < 400; i++) lines.push(`${t0 + i * 50},${5 + (i % 9)},GET,200,OK,t 1-1,text,true,100,http://shop/`);
  const file = path.join(dir, 'results.jtl');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const result = await runCli(['import', file, '--app', 'shop', '--label', 'imported'], { DATABASE_URL: db.url });
  assert.equal(result.code, 0, result.stderr);
  const runId = Number(/into run (\d+)/.exec(result.stdout)?.[1]);
  const row = await figuresRow(runId);
  assert.equal(row.stale, false);
  const data = await loadReportData(db.pool, [runId], { trim: 0.1 });
  assert.deepEqual(data.stored, [runId]);
  assert.equal(JSON.parse(row.figures).find((/** @type {any} */ f) => f.trim === 0).data.runs[0].requests, 400);
  const { rows } = await db.query(
    `SELECT c.reltuples FROM paasmon_partition_bounds(ARRAY['loadgen_requests']::regclass[]) b
     JOIN pg_class c ON c.oid = b.partition WHERE b.from_ts = '2029-07-04T00:00:00Z'`,
  );
  assert.equal(rows[0].reltuples, 400);
});
