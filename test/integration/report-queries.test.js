// Every query of sql/queries/ against a real PostgreSQL with seeded runs, its figures checked
// against an independent computation in JavaScript from the raw rows. Through the real psql, as a
// user pastes them: test/full/sql-queries-psql.test.js.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { compareRuns } from '../../collector/use-cases/compare-runs.js';
import { QUERIES_DIR, runSqlQuery } from '../../exporters/postgres/queries/report.js';
import { confidenceInterval, mean, percentile, stddevSample, studentT } from '../../report/statistics.js';
import { startQueryRuns } from '../support/report-command-runs.js';

const TRIM = 0.1;
/** @type {Awaited<ReturnType<typeof startQueryRuns>>['db']} */
let db;
/** @type {number[]} */
let rounds;
/** @type {number} */
let bare;

before(async () => {
  ({ db, rounds, bare } = await startQueryRuns());
});

after(async () => {
  await db?.stop();
});

/** @param {number[]} ids */
const variables = (ids, trim = TRIM) => ({ runs: `{${ids.join(',')}}`, trim });

/** @param {number | null} actual @param {number | null} expected @param {string} what */
function close(actual, expected, what) {
  assert.ok(actual !== null && expected !== null, `${what}: ${actual} vs ${expected}`);
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

/** Raw rows of a run, times as epoch seconds; the window computed here, independently. @param {number} runId */
async function independent(runId, trim = TRIM) {
  const { rows: requests } = await db.query(
    `SELECT extract(epoch FROM l.started_at)::float8 AS t, l.duration_ms, l.status, l.error,
      x.response_time_ms, x.gorouter_time_ms
    FROM loadgen_requests l LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id WHERE l.run_id = $1`,
    [runId],
  );
  const spanStart = Math.min(...requests.map((r) => r.t));
  const spanEnd = Math.max(...requests.map((r) => r.t + r.duration_ms / 1000));
  const from = spanStart + (spanEnd - spanStart) * trim;
  const to = spanEnd - (spanEnd - spanStart) * trim;
  const inWindow = requests.filter((r) => r.t >= from && r.t <= to);
  const { rows: samples } = await db.query(
    `SELECT extract(epoch FROM s.ts)::float8 AS t, s.cpu_percent, s.mem_bytes
    FROM instance_samples s JOIN test_runs r ON r.app_name = s.app_name WHERE r.id = $1`,
    [runId],
  );
  /** @type {Map<number, { cpu: number, mem: number }>} */
  const polls = new Map();
  for (const s of samples.filter((s) => s.t >= from && s.t <= to)) {
    const p = polls.get(s.t) ?? { cpu: 0, mem: 0 };
    polls.set(s.t, { cpu: p.cpu + s.cpu_percent, mem: p.mem + s.mem_bytes });
  }
  const routed = inWindow.filter((r) => r.response_time_ms !== null);
  return { inWindow, routed, windowS: to - from, polls: [...polls.values()] };
}

test('run_comparison: the steady window, counts, throughput, percentiles, stddev, router figures and CPU agree with the raw rows', async () => {
  const rows = await runSqlQuery(db.pool, 'run_comparison', variables([...rounds, bare]));
  assert.deepEqual(
    rows.map((r) => Number(r.run_id)),
    [...rounds, bare],
  );
  for (const row of rows.slice(0, 3)) {
    const x = await independent(Number(row.run_id));
    const durations = x.inWindow.map((r) => r.duration_ms);
    const successful = x.inWindow.filter((r) => r.status >= 1 && r.status <= 499).length;
    assert.ok(
      x.inWindow.length <
        0.85 *
          (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [row.run_id])).rows[0].n,
      'the window drops about a fifth of the requests',
    );
    assert.equal(row.requests, x.inWindow.length);
    assert.equal(row.successful, successful);
    assert.equal(row.errors, x.inWindow.filter((r) => r.status === 0 || r.status >= 500).length);
    assert.equal(row.timeouts, x.inWindow.filter((r) => r.error === 'timeout').length);
    assert.ok(row.timeouts > 0 && row.errors > row.timeouts);
    close(row.window_s, x.windowS, 'window_s');
    close(row.throughput_rps, successful / x.windowS, 'throughput_rps');
    close(row.throughput_rpm, (60 * successful) / x.windowS, 'throughput_rpm');
    close(row.e2e_mean_ms, mean(durations), 'e2e mean');
    for (const [column, p] of /** @type {const} */ ([
      ['e2e_p50_ms', 0.5],
      ['e2e_p90_ms', 0.9],
      ['e2e_p95_ms', 0.95],
      ['e2e_p99_ms', 0.99],
    ])) {
      close(row[column], percentile(durations, p), column);
    }
    close(row.e2e_max_ms, Math.max(...durations), 'e2e max');
    close(row.e2e_stddev_ms, stddevSample(durations), 'e2e stddev');
    const router = x.routed.map((r) => r.response_time_ms);
    assert.equal(row.router_records, router.length);
    close(row.matched_ratio, router.length / x.inWindow.length, 'matched_ratio');
    close(row.router_p95_ms, percentile(router, 0.95), 'router p95');
    close(row.router_mean_ms, mean(router), 'router mean');
    assert.equal(row.cpu_polls, x.polls.length);
    close(row.cpu_percent_avg, mean(x.polls.map((p) => p.cpu)), 'cpu avg');
    close(row.cpu_percent_peak, Math.max(...x.polls.map((p) => p.cpu)), 'cpu peak');
    close(row.cpu_capacity_percent, 200, 'capacity: 2 instances x 1 core');
    close(row.cpu_utilization_percent, (100 * Math.max(...x.polls.map((p) => p.cpu))) / 200, 'utilisation');
    close(
      row.rpm_per_cpu_percent,
      (60 * successful) / x.windowS / /** @type {number} */ (mean(x.polls.map((p) => p.cpu))),
      'rpm per cpu %',
    );
    close(row.mem_bytes_avg, mean(x.polls.map((p) => p.mem)), 'memory avg');
  }
  const missing = rows[3];
  assert.equal(missing.requests, (await independent(bare)).inWindow.length);
  assert.deepEqual(
    [
      missing.router_records,
      missing.router_p50_ms,
      missing.cpu_polls,
      missing.cpu_percent_avg,
      missing.rpm_per_cpu_percent,
    ],
    [0, null, 0, null, null],
  );
});

test('trim 0 keeps the whole run; the window moves with trim', async () => {
  const [whole] = await runSqlQuery(db.pool, 'run_comparison', variables([rounds[0]], 0));
  const count = (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [rounds[0]]))
    .rows[0].n;
  assert.equal(whole.requests, count);
  close(whole.window_s, 100, 'the seeded span');
  const [trimmed] = await runSqlQuery(db.pool, 'run_comparison', variables([rounds[0]], 0.25));
  close(trimmed.window_s, 50, 'half of the span');
});

test('rounds: mean and Student-t 95 % confidence interval agree with an independent computation', async () => {
  const comparison = await runSqlQuery(db.pool, 'run_comparison', variables(rounds));
  const [group] = await runSqlQuery(db.pool, 'rounds', variables(rounds));
  assert.equal(group.rounds, 3);
  assert.deepEqual(group.run_ids.map(Number), rounds);
  for (const key of ['throughput_rps', 'e2e_mean_ms', 'e2e_p95_ms', 'cpu_percent_avg', 'rpm_per_cpu_percent']) {
    const ci = confidenceInterval(comparison.map((r) => r[key]));
    close(group[`${key}_mean`], ci.mean, `${key} mean`);
    // student_t_975 carries the t table to 6 decimals: the half-widths agree to 1e-6.
    assert.ok(
      Math.abs(group[`${key}_ci95`] - /** @type {number} */ (ci.halfWidth)) <=
        1e-6 * /** @type {number} */ (ci.halfWidth),
      key,
    );
    assert.ok(group[`${key}_ci95`] > 0, key);
  }
  // The report computes the same rounds from its run rows.
  const report = await compareRuns(db.pool, rounds);
  assert.equal(report.rounds.length, 1);
  for (const [key, value] of Object.entries(group)) {
    if (typeof value !== 'number') continue;
    if (key.endsWith('_ci95')) assert.ok(Math.abs(report.rounds[0][key] - value) <= 1e-6 * value, `report ${key}`);
    else close(report.rounds[0][key], value, `report ${key}`);
  }
});

test('student_t_975 agrees with the t distribution for 1..300 degrees of freedom', async () => {
  const { rows } = await db.query('SELECT df, student_t_975(df) AS t FROM generate_series(0, 300) df');
  assert.equal(rows[0].t, null);
  for (const { df, t } of rows.slice(1))
    assert.ok(Math.abs(t - studentT(df)) < 1e-6 * studentT(df), `df ${df}: ${t} vs ${studentT(df)}`);
});

test('latency breakdown, errors and paths agree with the raw rows', async () => {
  const breakdown = await runSqlQuery(db.pool, 'latency_breakdown', variables([rounds[0], bare]));
  const x = await independent(rounds[0]);
  const outside = x.routed.map((r) => r.duration_ms - r.response_time_ms);
  const gorouter = x.routed.map((r) => r.gorouter_time_ms);
  const behind = x.routed.map((r) => r.response_time_ms - r.gorouter_time_ms);
  close(breakdown[0].outside_router_mean_ms, mean(outside), 'outside mean');
  close(breakdown[0].outside_router_p95_ms, percentile(outside, 0.95), 'outside p95');
  close(breakdown[0].in_gorouter_p50_ms, percentile(gorouter, 0.5), 'gorouter p50');
  close(breakdown[0].behind_router_mean_ms, mean(behind), 'behind mean');
  close(breakdown[0].behind_router_p95_ms, percentile(behind, 0.95), 'behind p95');
  assert.equal(breakdown[1].matched, 0);
  const [run] = await runSqlQuery(db.pool, 'run_comparison', variables([rounds[0]]));
  close(run.outside_router_mean_ms, breakdown[0].outside_router_mean_ms, 'run_comparison outside mean');
  close(run.behind_router_mean_ms, breakdown[0].behind_router_mean_ms, 'run_comparison behind mean');
  close(run.gorouter_mean_ms, breakdown[0].in_gorouter_mean_ms, 'run_comparison gorouter mean');
  assert.equal(breakdown[1].outside_router_mean_ms, null);

  const errors = await runSqlQuery(db.pool, 'errors', variables([rounds[0]]));
  const expected = new Map();
  for (const r of x.inWindow.filter((r) => r.status === 0 || r.status >= 500)) {
    const outcome = r.status === 0 ? `error:${r.error}` : `status:${r.status}`;
    expected.set(outcome, (expected.get(outcome) ?? 0) + 1);
  }
  assert.deepEqual(new Map(errors.map((e) => [e.outcome, e.requests])), expected);
  assert.deepEqual([...expected.keys()].sort(), ['error:timeout', 'status:503']);
  for (const e of errors) close(e.ratio, e.requests / x.inWindow.length, `${e.outcome} ratio`);

  const paths = await runSqlQuery(db.pool, 'paths', variables([rounds[0]]));
  assert.deepEqual(
    paths.map((p) => [p.path, p.requests]),
    [['/api/1', x.routed.length]],
  );
});

test('every file of sql/queries runs, for runs with and without router records and samples', async () => {
  const files = fs.readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.sql'));
  assert.ok(files.length >= 10, files.join(' '));
  for (const file of files) {
    const rows = await runSqlQuery(db.pool, file.replace(/\.sql$/, ''), variables([...rounds, bare]));
    assert.ok(rows.length > 0, `${file} returned rows`);
  }
});
