// `paasmon demo` as a user runs it: the whole chain on this machine, then nothing left behind,
// also when interrupted with Ctrl-C (SIGINT) in the middle of a run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { assertNothingLeft, demoDirs, exitWithin, startDemo } from '../support/demo.js';
import { processesMentioning } from '../support/process-tree.js';

describe('paasmon demo', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-demo-test-out-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('runs the whole chain at 1 and 2 instances: CPU, router records, every request correlated; leaves nothing behind', async () => {
    const tmpBefore = demoDirs();
    const demo = startDemo(
      ['--impl', 'node', '--parallel', '8', '--duration', '5s', '--instances', '1,2', '--out', out],
      { DATABASE_URL: db.url },
    );
    const exit = await exitWithin(demo.exited, 110_000);
    assert.equal(exit.code, 0, `${demo.output.stdout}\n${demo.output.stderr}`);
    const seen = await assertNothingLeft(demo, tmpBefore);
    const commands = seen.map((p) => p.cmd);
    assert.equal(
      commands.filter((c) => c.endsWith('sandbox/bulletin-board/server.js')).length,
      3,
      `1 + 2 instance processes: ${commands.join('\n')}`,
    );
    assert.equal(commands.filter((c) => / loadgen --url /.test(c)).length, 2, 'one loadgen per run');
    assert.equal(commands.filter((c) => c.endsWith(' collect')).length, 1);
    assert.ok(commands.some((c) => c.endsWith('sandbox/platform.js')));

    const runs = (
      await db.query(
        `SELECT id, label, instances, implementation, parallel, app_name, started_at, ended_at, meta FROM test_runs ORDER BY id`,
      )
    ).rows;
    assert.deepEqual(
      runs.map((r) => [r.label, r.instances, r.implementation, r.app_name, r.meta.demo]),
      [
        ['node 1 instance', 1, 'node', 'bulletin-board', 'true'],
        ['node 2 instances', 2, 'node', 'bulletin-board', 'true'],
      ],
    );
    for (const run of runs) {
      assert.ok(run.ended_at > run.started_at);
      const samples = (
        await db.query(
          `SELECT instance_index, cpu_percent, mem_bytes FROM instance_samples
        WHERE app_name = 'bulletin-board' AND ts BETWEEN $1 AND $2 AND state = 'RUNNING'`,
          [run.started_at, run.ended_at],
        )
      ).rows;
      assert.deepEqual(
        new Set(samples.map((s) => s.instance_index)),
        new Set(Array.from({ length: run.instances }, (_, i) => i)),
        `run ${run.id}: every instance sampled`,
      );
      assert.ok(
        samples.some((s) => s.cpu_percent > 0),
        `run ${run.id}: CPU above zero while under load`,
      );
      assert.ok(
        samples.every((s) => s.mem_bytes > 10 * 1024 * 1024),
        `run ${run.id}: a Node.js process's RSS`,
      );
      const [counts] = await correlationCounts(db.pool, run.id);
      assert.ok(counts.requests > 100, `run ${run.id}: load was generated (${counts.requests})`);
      assert.equal(counts.matched, counts.requests, `run ${run.id}: every request matched with its router record`);
      const routerRows = (
        await db.query(
          `SELECT count(*)::int AS n, count(DISTINCT app_index)::int AS instances FROM router_requests
        WHERE app_name = 'bulletin-board' AND received_at BETWEEN $1 AND $2`,
          [run.started_at, run.ended_at],
        )
      ).rows[0];
      assert.ok(routerRows.n >= counts.requests, `run ${run.id}: router records stored`);
      assert.equal(
        routerRows.instances,
        run.instances,
        `run ${run.id}: the router spread the load over every instance`,
      );
      const correlated = (
        await db.query('SELECT e2e_ms, router_ms FROM correlated_requests WHERE run_id = $1', [run.id])
      ).rows;
      assert.equal(correlated.length, counts.requests);
      const inverted = correlated.filter((r) => !(r.e2e_ms >= r.router_ms));
      assert.deepEqual(inverted, [], `run ${run.id}: the client never sees less than the router measured`);
    }
    const comparison = fs.readFileSync(path.join(out, 'comparison.txt'), 'utf8');
    for (const run of runs) {
      assert.match(comparison, new RegExp(`^figure\\s.*\\srun ${run.id}\\b`, 'm'), `run ${run.id} is a column`);
      assert.match(comparison, new RegExp(`^label\\s.*\\s${run.label}\\b`, 'm'), `run ${run.id} labelled`);
    }
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    assert.match(html, /<svg/, 'the HTML report has its charts');
    for (const run of runs) assert.ok(html.includes(run.label), `run ${run.id} in the HTML report`);
    assert.match(demo.output.stdout, /metrics: http:\/\/127\.0\.0\.1:\d+\/metrics/);
  });

  it('stops everything when interrupted with SIGINT in the middle of a run (embedded PostgreSQL)', async () => {
    const tmpBefore = demoDirs();
    const demo = startDemo(
      ['--impl', 'node', '--parallel', '8', '--duration', '60s', '--instances', '1', '--out', out],
      {},
    );
    await waitFor(() => demo.tree.alive().some((p) => / loadgen --url /.test(p.cmd)), {
      timeoutMs: 90_000,
      what: `the run to start\n${demo.output.stdout}\n${demo.output.stderr}`,
    });
    await new Promise((r) => setTimeout(r, 1500));
    const [dir] = demoDirs().filter((d) => !tmpBefore.includes(d));
    const server = () => processesMentioning(path.join(os.tmpdir(), dir, 'data')).filter((p) => /postgres/.test(p.cmd));
    assert.equal(server().length, 1, 'the demo runs its own embedded PostgreSQL, on a data directory of its own');
    demo.child.kill('SIGINT');
    const exit = await exitWithin(demo.exited, 30_000);
    assert.equal(exit.code, 130, `${demo.output.stdout}\n${demo.output.stderr}`);
    assert.match(demo.output.stdout, /interrupted: stopping everything/);
    await assertNothingLeft(demo, tmpBefore);
    assert.deepEqual(server(), [], 'its PostgreSQL is stopped too');
  });

  it('fails at once, stopping everything, when a process it needs dies mid-run', async () => {
    const tmpBefore = demoDirs();
    const demo = startDemo(
      ['--impl', 'node', '--parallel', '8', '--duration', '60s', '--instances', '1', '--out', out],
      { DATABASE_URL: db.url },
    );
    const collect = await waitFor(
      () =>
        demo.tree.alive().some((p) => / loadgen --url /.test(p.cmd)) &&
        demo.tree.alive().find((p) => p.cmd.endsWith(' collect')),
      { timeoutMs: 90_000, what: `the run to start\n${demo.output.stdout}\n${demo.output.stderr}` },
    );
    process.kill(collect.pid, 'SIGKILL');
    const exit = await exitWithin(demo.exited, 30_000);
    assert.equal(exit.code, 1, `${demo.output.stdout}\n${demo.output.stderr}`);
    assert.match(demo.output.stderr, /^paasmon: collect ended unexpectedly \(SIGKILL\)/m);
    await assertNothingLeft(demo, tmpBefore);
  });

  it('exits 2 with one line on bad flags', async () => {
    const demo = startCli(['demo', '--instances', '1,zero'], {});
    const exit = await demo.exited;
    assert.equal(exit.code, 2);
    assert.match(
      demo.output.stderr,
      /^paasmon: invalid configuration: --instances must be a comma list of instance counts/m,
    );
  });
});
