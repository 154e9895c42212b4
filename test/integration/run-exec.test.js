// paasmon run exec: the tool runs as a child inside a run that spans its life; its results are
// imported when it ends; its exit code is the command's; SIGTERM reaches it; --warmup leaves the
// requests of the tool's first moments out of the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

describe('paasmon run exec', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-exec-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs the tool in a new run, imports its results when it ends, and returns the tool's exit code", async () => {
    const results = path.join(dir, 'locust.jsonl');
    // A stand-in tool: writes two Locust listener lines, then exits 3 (as Locust does on failures, with 1).
    const tool =
      `const fs = require('fs'); const now = Date.now() / 1000;` +
      `fs.writeFileSync(${JSON.stringify(results)}, [0, 1].map((i) => JSON.stringify({ start_time: now + i / 100, ` +
      `response_time: 5, request_type: 'GET', name: '/', url: 'http://h/', status: 200, response_length: 2, ` +
      `exception: null, correlation_id: require('crypto').randomUUID() })).join('\\n')); process.exit(3);`;
    const before = Date.now();
    const run = await runCli(
      ['run', 'exec', '--app', 'shop', '--label', 'locust 1', '--results', results, '--', process.execPath, '-e', tool],
      { DATABASE_URL: db.url },
    );
    const after = Date.now();
    assert.equal(run.code, 3, run.stderr);
    const runId = Number(/^run (\d+): /.exec(run.stdout)?.[1]);
    assert.match(run.stdout, /2 requests read from .*locust\.jsonl \(locust\) into run \d+, 2 new rows, 2 with/);
    const row = (await db.query('SELECT started_at, ended_at, meta FROM test_runs WHERE id = $1', [runId])).rows[0];
    assert.ok(row.started_at.getTime() >= before && row.ended_at.getTime() <= after, 'the run spans the tool');
    assert.ok(row.ended_at > row.started_at);
    assert.equal(row.meta.tool, 'locust');
    const n = (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId])).rows[0].n;
    assert.equal(n, 2);
  });

  it('--warmup D leaves the requests of the first D after the tool starts out of the run', async () => {
    const results = path.join(dir, 'warm.jsonl');
    // A stand-in tool: a request every 20 ms for 1.2 s, each line written with its own send time.
    const tool =
      `const fs = require('fs'); const t0 = Date.now(); const lines = []; const timer = setInterval(() => {` +
      `lines.push(JSON.stringify({ start_time: Date.now() / 1000, response_time: 5, request_type: 'GET', ` +
      `name: '/', url: 'http://h/', status: 200, response_length: 2, exception: null, ` +
      `correlation_id: require('crypto').randomUUID() }));` +
      `if (Date.now() - t0 >= 1200) { clearInterval(timer); fs.writeFileSync(${JSON.stringify(results)}, ` +
      `lines.join('\\n')); } }, 20);`;
    const before = Date.now();
    const args = ['--app', 'shop', '--label', 'warm', '--warmup', '500ms', '--results', results];
    const run = await runCli(['run', 'exec', ...args, '--', process.execPath, '-e', tool], { DATABASE_URL: db.url });
    assert.equal(run.code, 0, run.stderr);
    const runId = Number(/^run (\d+): /.exec(run.stdout)?.[1]);
    const sent = fs
      .readFileSync(results, 'utf8')
      .split('\n')
      .map((line) => JSON.parse(line).start_time * 1000);
    const row = (await db.query('SELECT started_at FROM test_runs WHERE id = $1', [runId])).rows[0];
    const opens = row.started_at.getTime();
    assert.ok(opens >= before + 500 && opens <= sent[0] + 500, 'the window opens D after the tool was started');
    const kept = sent.filter((ms) => ms >= opens);
    assert.ok(kept.length > 10 && kept.length < sent.length - 10, `${kept.length} of ${sent.length}`);
    const stored = (
      await db.query(`SELECT count(*)::int AS n, min(started_at) AS first FROM loadgen_requests WHERE run_id = $1`, [
        runId,
      ])
    ).rows[0];
    assert.equal(stored.n, kept.length);
    assert.ok(stored.first.getTime() >= opens);
    const warm = Number(
      /warm-up: (\d+) requests sent in the first 500ms after the tool started, not in run/.exec(run.stdout)?.[1],
    );
    assert.equal(warm, sent.length - kept.length);
    const figures = await db.query('SELECT requests FROM run_summary WHERE run_id = $1', [runId]);
    assert.equal(Number(figures.rows[0].requests), kept.length);
  });

  it('says in one line when every request came within the warm-up (exit 1)', async () => {
    const results = path.join(dir, 'all-warm.jsonl');
    const tool =
      `require('fs').writeFileSync(${JSON.stringify(results)}, JSON.stringify({ start_time: Date.now() / 1000, ` +
      `response_time: 5, request_type: 'GET', name: '/', url: 'http://h/', status: 200, response_length: 2, ` +
      `exception: null, correlation_id: require('crypto').randomUUID() }))`;
    const args = ['--app', 'shop', '--label', 'all warm', '--warmup', '1m', '--results', results];
    const run = await runCli(['run', 'exec', ...args, '--', process.execPath, '-e', tool], { DATABASE_URL: db.url });
    assert.equal(run.code, 1, run.stderr);
    const runId = Number(/^run (\d+): /.exec(run.stdout)?.[1]);
    assert.match(
      run.stdout,
      new RegExp(`warm-up: 1 request sent in the first 1m after the tool started, not in run ${runId}`),
    );
    assert.equal(run.stderr, `paasmon: run exec: every request came within --warmup 1m: run ${runId} holds none\n`);
    const n = (await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1', [runId])).rows[0].n;
    assert.equal(n, 0);
  });

  it('refuses a --warmup that is no duration in one line (exit 2), before the tool starts', async () => {
    const marker = path.join(dir, 'never');
    const tool = `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`;
    const args = ['run', 'exec', '--app', 'shop', '--label', 'x', '--warmup', 'soon', '--', process.execPath];
    const run = await runCli([...args, '-e', tool], { DATABASE_URL: db.url });
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'paasmon: invalid configuration: --warmup must be a duration such as 500ms, 30s or 2m, got "soon"\n',
    );
    assert.equal(fs.existsSync(marker), false);
  });

  it('forwards SIGTERM to the tool and exits with its code; a joined run stays open', async () => {
    const start = await runCli(['run', 'start', '--app', 'shop', '--label', 'joined'], { DATABASE_URL: db.url });
    const runId = start.stdout.trim();
    const marker = path.join(dir, 'started');
    const tool =
      `process.on('SIGTERM', () => process.exit(42)); ` +
      `require('fs').writeFileSync(${JSON.stringify(marker)}, ''); setInterval(() => {}, 1000);`;
    const cli = startCli(['run', 'exec', '--run', runId, '--', process.execPath, '-e', tool], { DATABASE_URL: db.url });
    await waitFor(() => fs.existsSync(marker), { what: 'the tool to start', timeoutMs: 60_000 });
    cli.child.kill('SIGTERM');
    const { code } = await cli.exited;
    assert.equal(code, 42, cli.output.stderr);
    const row = (await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [runId])).rows[0];
    assert.equal(row.ended_at, null);
  });

  it('refuses a missing command and an unknown tool in one line', async () => {
    const env = { DATABASE_URL: db.url };
    const none = await runCli(['run', 'exec', '--app', 'shop', '--label', 'x'], env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /missing required argument 'command'/);
  });

  it("says in one line that the tool's results hold no request, exiting with the tool's code (else 1)", async () => {
    const results = path.join(dir, 'header-only.jsonl');
    for (const [exit, code] of [
      [4, 4],
      [0, 1],
    ]) {
      const tool = `require('fs').writeFileSync(${JSON.stringify(results)}, ''); process.exit(${exit});`;
      const run = await runCli(
        ['run', 'exec', '--app', 'shop', '--label', 'empty', '--results', results, '--', process.execPath, '-e', tool],
        { DATABASE_URL: db.url },
      );
      assert.equal(run.code, code, run.stderr);
      assert.equal(run.stderr, `paasmon: import: ${results} holds no requests: it is empty; nothing imported\n`);
      const runId = Number(/^run (\d+): /.exec(run.stdout)?.[1]);
      const row = (await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [runId])).rows[0];
      assert.ok(row.ended_at instanceof Date, 'the run spans the tool that ran');
    }
  });

  // Issue 44 item 8: a tool that could not start left an empty, ended run behind.
  it('says in one line that the tool cannot start (exit 1), leaving no run behind', async () => {
    const env = { DATABASE_URL: db.url };
    const runs = async () => (await db.query('SELECT id, ended_at FROM test_runs ORDER BY id')).rows;
    const joined = Number((await runCli(['run', 'start', '--app', 'shop', '--label', 'joined'], env)).stdout.trim());
    const before = await runs();
    const script = path.join(dir, 'not-executable.sh');
    fs.writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    for (const [tool, says] of [
      ['no-such-tool-here', 'no such command'],
      [script, 'permission denied'],
    ]) {
      for (const target of [
        ['--app', 'shop', '--label', 'x'],
        ['--run', String(joined)],
      ]) {
        const result = await runCli(['run', 'exec', ...target, '--', tool, '-n', '10'], env);
        assert.equal(result.code, 1, result.stderr);
        assert.equal(result.stderr, `paasmon: run exec: cannot start ${tool}: ${says}\n`);
        assert.equal(result.stdout, '');
      }
    }
    assert.deepEqual(await runs(), before, 'no run made, the joined one left open');
  });
});
