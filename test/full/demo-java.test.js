// `paasmon demo --impl node,java`: both sample apps under a load sweep, the comparison with a USL fit
// per implementation; Node.js alone with one line of advice where Java is missing; nothing left
// behind, also after Ctrl-C during a Java run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { assertNothingLeft, demoDirs, exitWithin, startDemo } from '../support/demo.js';

const LOADS = [1, 2, 4, 8, 16, 32];
const isJavaInstance = (/** @type {string} */ cmd) => /\bjava .*-cp \S*java-classes\S* Main$/.test(cmd);

/** @param {Awaited<ReturnType<typeof startTestDatabase>>} db @param {any} run */
async function runEvidence(db, run) {
  const [samples] = (
    await db.query(
      `SELECT count(DISTINCT instance_index)::int AS instances, max(cpu_percent) AS cpu FROM instance_samples
      WHERE app_name = 'bulletin-board' AND ts BETWEEN $1 AND $2 AND state = 'RUNNING'`,
      [run.started_at, run.ended_at],
    )
  ).rows;
  const [router] = (
    await db.query(
      `SELECT count(*)::int AS n FROM router_requests WHERE app_name = 'bulletin-board' AND received_at BETWEEN $1 AND $2`,
      [run.started_at, run.ended_at],
    )
  ).rows;
  const [counts] = await correlationCounts(db.pool, run.id);
  return { samples, router, counts };
}

describe('paasmon demo --impl node,java', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-test-demo-impl-out-'));
  const noJavaBin = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-test-no-java-bin-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(noJavaBin, { recursive: true, force: true });
  });

  it('runs both implementations through the sweep, fits the USL per implementation, leaves nothing behind', async () => {
    const tmpBefore = demoDirs();
    const args = ['--impl', 'node,java', '--duration', '3s', '--instances', '1,2', '--parallel', LOADS.join(',')];
    const demo = startDemo([...args, '--out', out], { DATABASE_URL: db.url });
    const exit = await exitWithin(demo.exited, 600_000);
    const output = `${demo.output.stdout}\n${demo.output.stderr}`;
    assert.equal(exit.code, 0, output);
    const seen = await assertNothingLeft(demo, tmpBefore);
    assert.equal(seen.filter((p) => isJavaInstance(p.cmd)).length, 3, 'java instances at 1 and 2 instances');
    assert.match(demo.output.stdout, /pinned with taskset/);

    const runs = (await db.query('SELECT * FROM test_runs ORDER BY id')).rows;
    for (const impl of ['node', 'java']) {
      const mine = runs.filter((r) => r.implementation === impl);
      assert.deepEqual(
        mine.map((r) => [r.instances, r.parallel, r.cores_per_instance]),
        [1, 2].flatMap((n) => LOADS.map((p) => [n, p, 1])),
        `${impl}: a run per instance count and load`,
      );
      assert.equal(mine[0].label, `${impl} 1 instance, 1 in flight`);
    }
    for (const run of runs) {
      const { samples, router, counts } = await runEvidence(db, run);
      const what = `run ${run.id} (${run.label})`;
      assert.equal(samples.instances, run.instances, `${what}: every instance sampled`);
      assert.ok(samples.cpu > 0, `${what}: CPU above zero`);
      assert.ok(counts.requests > 0 && counts.matched === counts.requests, `${what}: 100 % correlated`);
      assert.ok(router.n >= counts.requests, `${what}: router records stored`);
    }

    const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
    const throughput = new Map(report.runs.map((/** @type {any} */ r) => [r.run_id, r.throughput_rps]));
    for (const impl of ['node', 'java']) {
      for (const instances of [1, 2]) {
        const key = `${impl} at ${instances} instance${instances === 1 ? '' : 's'}`;
        const fit = report.scaling.find((/** @type {any} */ s) => s.key === key);
        assert.ok(fit?.fit, `${key}: a USL fit in the JSON report ${JSON.stringify(fit)}`);
        assert.equal(fit.by, 'parallel');
        const ids = runs.filter((r) => r.implementation === impl && r.instances === instances).map((r) => r.id);
        assert.deepEqual(
          fit.points.map((/** @type {any} */ p) => [p.runId, p.n, p.throughput]),
          ids.map((id, i) => [id, LOADS[i], throughput.get(id)]),
          `${key}: its points are the runs' measured throughputs`,
        );
        assert.ok(fit.fit.sigma >= 0 && fit.fit.kappa >= 0 && fit.fit.lambda > 0);
      }
    }
    assert.match(demo.output.stdout, /^ {2}java at 2 instances: σ = \S+, κ = \S+, (N\* = \d+|no peak)/m);
    const closing = demo.output.stdout.trimEnd().split('\n').at(-1) ?? '';
    assert.match(closing, /^(node|java) did more requests per CPU %: [\d.]+ req\/min per CPU %/);
    assert.match(closing, /Scaling stopped \(USL peak\): node at 1 instance .*; java at 1 instance /);
    assert.match(closing, /Largest latency contributor \(mean over the runs\): node (outside|in gorouter|behind)/);
    const html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    assert.match(html, /data-chart="usl-by-parallel"/, 'one USL chart with every implementation');
    assert.match(html, /Scalability side by side/);
  });

  it('runs Node.js alone, with one line on what to install, where java is not on PATH', async () => {
    fs.symlinkSync(process.execPath, path.join(noJavaBin, 'node'));
    const tmpBefore = demoDirs();
    const args = ['--impl', 'node,java', '--duration', '2s', '--instances', '1', '--parallel', '2', '--rate', '40'];
    const demo = startDemo([...args, '--out', out], { DATABASE_URL: db.url, PATH: noJavaBin });
    const exit = await exitWithin(demo.exited, 180_000);
    assert.equal(exit.code, 0, `${demo.output.stdout}\n${demo.output.stderr}`);
    const notes = demo.output.stdout.split('\n').filter((l) => /java/i.test(l) && !/^\s*\d+\s/.test(l));
    assert.deepEqual(
      notes,
      [
        'java: not run (no java on PATH); for the Java comparison: apt-get install default-jdk-headless ' +
          'libpostgresql-jdbc-java (or set PAASMON_JDBC_JAR to a PostgreSQL JDBC jar)',
      ],
      demo.output.stdout,
    );
    assert.match(demo.output.stdout, /CPU limit not applied: no taskset on PATH/, 'said when not pinned');
    const seen = await assertNothingLeft(demo, tmpBefore);
    assert.equal(seen.filter((p) => isJavaInstance(p.cmd)).length, 0);
    const last = (await db.query('SELECT * FROM test_runs ORDER BY id DESC LIMIT 2')).rows.reverse();
    assert.deepEqual(
      last.map((r) => [r.implementation, r.label, r.parallel, r.meta.rate]),
      [
        ['node', 'node 1 instance, 2 in flight', 2, undefined],
        ['node', 'node 1 instance, 40 req/s offered', null, '40'],
      ],
      'a closed-model run, then an open-model one at the --rate step',
    );
    const [open] = await correlationCounts(db.pool, last[1].id);
    const expected = 40 * 2;
    assert.ok(Math.abs(open.requests - expected) <= 8, `about 40 req/s for 2 s: ${open.requests}`);
    assert.equal(open.matched, open.requests);
  });

  it('stops the Java instances and everything else on Ctrl-C during a Java run', async () => {
    const tmpBefore = demoDirs();
    const args = ['--impl', 'java', '--duration', '60s', '--instances', '2', '--parallel', '4'];
    const demo = startDemo([...args, '--out', out], { DATABASE_URL: db.url });
    await waitFor(() => demo.tree.alive().some((p) => / loadgen --url /.test(p.cmd)), {
      timeoutMs: 120_000,
      what: `the run to start\n${demo.output.stdout}\n${demo.output.stderr}`,
    });
    const javas = demo.tree.alive().filter((p) => isJavaInstance(p.cmd));
    assert.equal(javas.length, 2);
    // Each instance pinned to one core of its own (taskset, --cores-per-instance 1).
    const allowed = javas.map(
      (p) => /^Cpus_allowed_list:\s*(\S+)$/m.exec(fs.readFileSync(`/proc/${p.pid}/status`, 'utf8'))?.[1],
    );
    assert.ok(
      allowed.every((list) => /^\d+$/.test(list ?? '')),
      `one CPU each: ${allowed}`,
    );
    if (os.cpus().length > 1) assert.notEqual(allowed[0], allowed[1], 'side by side, not on the same core');
    demo.child.kill('SIGINT');
    const exit = await exitWithin(demo.exited, 30_000);
    assert.equal(exit.code, 130, `${demo.output.stdout}\n${demo.output.stderr}`);
    await assertNothingLeft(demo, tmpBefore);
  });
});
