// End to end: run start -> loadgen -> gorouter stand-in -> app instances; the stand-in's access log
// ingested through the file source; correlate; run_summary checked against an independent computation.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { startAppInstances, startGorouterStandin } from '../../sandbox/gorouter-standin.js';

/**
 * percentile_cont: linear interpolation between the values at ranks floor and ceil of p * (n - 1).
 * @param {number[]} sorted
 * @param {number} p
 */
function percentileCont(sorted, p) {
  const position = p * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

/** @param {number} a @param {number} b @param {string} what */
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

describe('correlation end to end', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startAppInstances>>} */
  let apps;
  /** @type {Awaited<ReturnType<typeof startGorouterStandin>>} */
  let router;
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-rtr-')), 'access.log');
  const appGuid = '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b';

  before(async () => {
    db = await startTestDatabase();
    apps = await startAppInstances(2, (i, req, res) =>
      setTimeout(() => res.writeHead(req.url === '/fail' ? 500 : 200).end('hello'), 2 + i * 3),
    );
    router = await startGorouterStandin({
      backends: apps.urls,
      appGuid,
      host: 'shop.apps.example.com',
      logFile,
      extraHeaders: ['X-Correlation-Id'],
    });
  });
  after(async () => {
    await router.close();
    apps.close();
    await db.stop();
    fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  });

  it('matches every request, keeps e2e >= router time, and summarises the run exactly', async () => {
    const env = { DATABASE_URL: db.url };
    const start = await runCli(
      [
        'run',
        'start',
        '--label',
        'nodejs 2 instances',
        '--app',
        'shop',
        '--instances',
        '2',
        '--cores-per-instance',
        '1',
        '--parallel',
        '8',
        '--impl',
        'nodejs',
      ],
      env,
    );
    const runId = Number(start.stdout.trim());
    // Two workers joining one run, as two Cloud Foundry instances would.
    const workers = await Promise.all(
      [0, 1].map((i) =>
        runCli(
          ['loadgen', '--url', `${router.url}/items`, '--requests', '400', '--parallel', '4', '--run', String(runId)],
          { ...env, CF_INSTANCE_INDEX: String(i) },
        ),
      ),
    );
    for (const w of workers) assert.equal(w.code, 0, w.stderr);
    const stop = await runCli(['run', 'stop', String(runId)], env);
    assert.equal(stop.code, 0);
    await router.close();

    // CPU of the app during the run, two instances per poll, as the Cloud Controller poll stores it.
    const run = (await db.query('SELECT started_at, ended_at FROM test_runs WHERE id = $1', [runId])).rows[0];
    const polls = [0.25, 0.5, 0.75].map(
      (f) => new Date(run.started_at.getTime() + f * (run.ended_at.getTime() - run.started_at.getTime())),
    );
    const cpu = [
      [40, 35],
      [90, 80],
      [60, 70],
    ];
    for (const [p, ts] of polls.entries()) {
      for (const index of [0, 1]) {
        await db.query(
          `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes)
          VALUES ($1, $2, 'shop', 'web', $3, 'RUNNING', $4, $5)`,
          [ts, appGuid, index, cpu[p][index], 100_000_000 + index],
        );
      }
    }
    // Outside the run: must not count.
    await db.query(
      `INSERT INTO instance_samples (ts, app_guid, app_name, process_type, instance_index, state, cpu_percent, mem_bytes)
      VALUES ($1, $2, 'shop', 'web', 0, 'RUNNING', 400, 1)`,
      [new Date(run.started_at.getTime() - 60_000), appGuid],
    );

    const ingest = await runCli(['ingest', '--file', logFile, '--app', 'shop'], env);
    assert.equal(ingest.code, 0, ingest.stderr);
    assert.match(ingest.stdout, /^800 router requests read from .*, 800 new rows; skipped: none; cleaned: 0$/m);

    const correlate = await runCli(['correlate', '--run', String(runId)], env);
    assert.match(
      correlate.stdout,
      new RegExp(`^\\s*${runId}  nodejs 2 instances\\s+800\\s+800\\s+0\\s+0\\s+100\\.00$`, 'm'),
    );

    const joined = (
      await db.query('SELECT e2e_ms, router_ms, overhead_ms, app_index FROM correlated_requests WHERE run_id = $1', [
        runId,
      ])
    ).rows;
    assert.equal(joined.length, 800);
    for (const r of joined) {
      assert.ok(
        r.e2e_ms >= r.router_ms,
        `the client sees at least what the router measured (${r.e2e_ms} < ${r.router_ms})`,
      );
      close(r.overhead_ms, r.e2e_ms - r.router_ms, 'overhead_ms');
    }
    assert.deepEqual(new Set(joined.map((r) => r.app_index)), new Set([0, 1]));
    const workersSeen = (
      await db.query(
        'SELECT worker, count(*)::int AS n FROM loadgen_requests WHERE run_id = $1 GROUP BY worker ORDER BY worker',
        [runId],
      )
    ).rows;
    assert.deepEqual(workersSeen, [
      { worker: 'instance-0', n: 400 },
      { worker: 'instance-1', n: 400 },
    ]);

    // Independent computation from the raw rows.
    const raw = (
      await db.query(
        `SELECT (extract(epoch FROM l.started_at) * 1000000)::bigint AS started_us, l.duration_ms, l.status,
                r.response_time_ms FROM loadgen_requests l
      JOIN router_requests r ON r.correlation_id = l.correlation_id WHERE l.run_id = $1`,
        [runId],
      )
    ).rows;
    const e2e = raw.map((r) => r.duration_ms).sort((a, b) => a - b);
    const routerMs = raw.map((r) => r.response_time_ms).sort((a, b) => a - b);
    const mean = e2e.reduce((a, b) => a + b, 0) / e2e.length;
    const stddev = Math.sqrt(e2e.reduce((a, b) => a + (b - mean) ** 2, 0) / (e2e.length - 1));
    // started_at keeps microseconds (a JS Date would cut them to milliseconds); PostgreSQL adds
    // duration_ms as an interval rounded to the microsecond.
    const firstSent = Math.min(...raw.map((r) => r.started_us));
    const lastDone = Math.max(...raw.map((r) => r.started_us + Math.round(r.duration_ms * 1000)));
    const durationS = (lastDone - firstSent) / 1e6;
    const errors = raw.filter((r) => r.status === 0 || r.status >= 500).length;
    const cpuPerPoll = cpu.map(([a, b]) => a + b);
    const cpuAvg = cpuPerPoll.reduce((a, b) => a + b, 0) / cpuPerPoll.length;

    const s = (await db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId])).rows[0];
    assert.equal(s.label, 'nodejs 2 instances');
    assert.equal(Number(s.requests), 800);
    assert.equal(Number(s.errors), errors);
    close(s.duration_s, durationS, 'duration_s');
    close(s.throughput_rps, (800 - errors) / durationS, 'throughput_rps');
    close(s.e2e_mean_ms, mean, 'e2e_mean_ms');
    close(s.e2e_p50_ms, percentileCont(e2e, 0.5), 'e2e_p50_ms');
    close(s.e2e_p95_ms, percentileCont(e2e, 0.95), 'e2e_p95_ms');
    close(s.e2e_p99_ms, percentileCont(e2e, 0.99), 'e2e_p99_ms');
    close(s.e2e_max_ms, e2e[e2e.length - 1], 'e2e_max_ms');
    close(s.e2e_stddev_ms, stddev, 'e2e_stddev_ms');
    close(s.router_mean_ms, routerMs.reduce((a, b) => a + b, 0) / routerMs.length, 'router_mean_ms');
    close(s.router_p95_ms, percentileCont(routerMs, 0.95), 'router_p95_ms');
    close(s.matched_ratio, 1, 'matched_ratio');
    close(s.cpu_percent_avg, cpuAvg, 'cpu_percent_avg');
    close(s.cpu_percent_peak, 170, 'cpu_percent_peak');
    close(s.cpu_capacity_percent, 200, 'cpu_capacity_percent');
    close(s.cpu_utilization, 170 / 200, 'cpu_utilization');
    close(s.mem_bytes_avg, 200_000_001, 'mem_bytes_avg');
    close(s.throughput_per_cpu_percent, (800 - errors) / durationS / cpuAvg, 'throughput_per_cpu_percent');
  });
});
