// `paasmon run` and `paasmon loadgen` as processes, against local HTTP servers, into a real PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { freePort, startTestDatabase } from '../support/database.js';

/**
 * A server that records the headers it saw and answers by `behave(n)` (n = 1, 2, ...).
 * @param {(n: number, req: http.IncomingMessage) => { status?: number, delayMs?: number, hang?: boolean }} behave
 */
async function startApp(behave) {
  /** @type {Array<Record<string, string | string[] | undefined>>} */
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    const how = behave(seen.length, req);
    if (how.hang) return;
    setTimeout(() => res.writeHead(how.status ?? 200, { 'Content-Type': 'text/plain' }).end('ok'), how.delayMs ?? 0);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/work`,
    seen,
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('paasmon run and loadgen', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Record<string, string>} */
  let env;
  before(async () => {
    db = await startTestDatabase();
    env = { DATABASE_URL: db.url };
  });
  after(async () => {
    await db.stop();
  });

  /** @param {string[]} args */
  const newRun = async (args = []) => {
    const result = await runCli(['run', 'start', '--label', 'test', '--app', 'shop', ...args], env);
    assert.equal(result.code, 0, result.stderr);
    return Number(result.stdout.trim());
  };
  /** @param {number} run */
  const rows = async (run) =>
    (
      await db.query(
        'SELECT correlation_id, started_at, duration_ms, status, error, worker FROM loadgen_requests WHERE run_id = $1',
        [run],
      )
    ).rows;

  it('registers, lists and stops runs with their parameters', async () => {
    const id = await newRun([
      '--instances',
      '3',
      '--parallel',
      '16',
      '--round',
      '2',
      '--impl',
      'java',
      '--cores-per-instance',
      '4',
      '--meta',
      'heap=512m',
      'gc=g1',
    ]);
    const row = (await db.query('SELECT * FROM test_runs WHERE id = $1', [id])).rows[0];
    assert.deepEqual(
      [
        row.label,
        row.app_name,
        row.instances,
        row.parallel,
        row.round,
        row.implementation,
        row.cores_per_instance,
        row.meta,
        row.ended_at,
      ],
      ['test', 'shop', 3, 16, 2, 'java', 4, { heap: '512m', gc: 'g1' }, null],
    );
    const list = await runCli(['run', 'list'], env);
    assert.match(
      list.stdout,
      new RegExp(`^\\s*${id}  test\\s+shop\\s+java\\s+3\\s+16\\s+2\\s+4 .* gc=g1 heap=512m$`, 'm'),
    );
    // Credentials in meta (a worker's target URL, a token) are stored for the worker but never listed.
    const secretRun = await runCli(
      ['run', 'start', '--label', 'auth', '--app', 'shop', '--meta', 'url=https://bob:hunter2@app.example.com/x'],
      env,
    );
    await runCli(['run', 'stop', secretRun.stdout.trim()], env);
    const listed = (await runCli(['run', 'list'], env)).stdout;
    assert.match(listed, /url=https:\/\/bob:\[REDACTED\]@app\.example\.com\/x/);
    assert.ok(!listed.includes('hunter2'));
    assert.equal((await runCli(['run', 'stop', String(id)], env)).stdout.trim(), `run ${id} stopped`);
    assert.ok((await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [id])).rows[0].ended_at instanceof Date);
    const again = await runCli(['run', 'stop', String(id)], env);
    assert.equal(again.code, 1);
    const bad = await runCli(['run', 'start', '--label', 'x', '--app', 'a', '--instances', 'two'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--instances must be a whole number of at least 1, got "two"/);
  });

  it('sends one fresh id per request in every form and records exact counts and statuses', async () => {
    const app = await startApp((n) => ({ status: n % 10 === 0 ? 500 : n % 7 === 0 ? 404 : 200 }));
    const run = await newRun();
    const result = await runCli(
      [
        'loadgen',
        '--url',
        app.url,
        '--requests',
        '300',
        '--parallel',
        '6',
        '--run',
        String(run),
        '--worker',
        'w1',
        '-H',
        'X-Test: yes',
      ],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(app.seen.length, 300);
    const ids = new Set();
    for (const h of app.seen) {
      const id = String(h['x-correlation-id']);
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const hex = id.replace(/-/g, '');
      assert.equal(h['x-b3-traceid'], hex);
      assert.match(String(h['x-b3-spanid']), /^[0-9a-f]{16}$/);
      assert.equal(h.traceparent, `00-${hex}-${h['x-b3-spanid']}-01`);
      assert.equal(h['x-test'], 'yes');
      ids.add(id);
    }
    assert.equal(ids.size, 300, 'every id is fresh');
    const stored = await rows(run);
    assert.equal(stored.length, 300);
    assert.deepEqual(new Set(stored.map((r) => r.correlation_id)), ids);
    const byStatus = (/** @type {number} */ s) => stored.filter((r) => r.status === s).length;
    assert.deepEqual([byStatus(200), byStatus(404), byStatus(500)], [232, 38, 30]);
    assert.ok(stored.every((r) => r.worker === 'w1' && r.error === null && r.duration_ms > 0));
    assert.match(result.stdout, /Requests:\s+300\n/);
    assert.match(result.stdout, /\[404\] 38 responses/);
    assert.match(result.stdout, /Errors:\s+30 \(10\.00 %; no response or 5xx\)/);
    await app.close();
  });

  it('records timeouts and refused connections as status 0 with their kind, and fails the checks', async () => {
    const app = await startApp((n) => (n % 4 === 0 ? { hang: true } : {}));
    const run = await newRun();
    const result = await runCli(
      [
        'loadgen',
        '--url',
        app.url,
        '--requests',
        '40',
        '--parallel',
        '4',
        '--timeout',
        '300ms',
        '--run',
        String(run),
        '--max-error-ratio',
        '0.1',
      ],
      env,
    );
    assert.equal(result.code, 1, 'error ratio 0.25 > 0.1');
    assert.match(result.stdout, /FAILED: error ratio 0\.2500 > --max-error-ratio 0\.1/);
    const stored = await rows(run);
    assert.equal(stored.filter((r) => r.status === 0 && r.error === 'timeout').length, 10);
    assert.ok(
      stored.filter((r) => r.error === 'timeout').every((r) => r.duration_ms >= 299),
      'timed out after the 300 ms (timers may fire up to 1 ms early)',
    );
    await app.close();

    const closed = await freePort();
    const refusedRun = await newRun();
    const refused = await runCli(
      ['loadgen', '--url', `http://127.0.0.1:${closed}/`, '--requests', '5', '--run', String(refusedRun)],
      env,
    );
    assert.equal(refused.code, 0);
    assert.deepEqual(
      (await rows(refusedRun)).map((r) => [r.status, r.error]),
      Array(5).fill([0, 'refused']),
    );
    assert.match(refused.stdout, /refused: 5/);
  });

  it('--duration stops sending at the deadline; --max-p95 turns slow runs into a failure', async () => {
    const app = await startApp(() => ({ delayMs: 20 }));
    const run = await newRun();
    const started = Date.now();
    const result = await runCli(
      ['loadgen', '--url', app.url, '--duration', '1s', '--parallel', '4', '--run', String(run), '--max-p95', '5'],
      env,
    );
    assert.equal(result.code, 1);
    assert.match(result.stdout, /FAILED: p95 \d+\.\d+ ms > --max-p95 5 ms/);
    const stored = await rows(run);
    assert.ok(stored.length > 20, `${stored.length} requests`);
    const firstSent = Math.min(...stored.map((r) => r.started_at.getTime()));
    const lastSent = Math.max(...stored.map((r) => r.started_at.getTime()));
    assert.ok(
      firstSent >= started - 5 && lastSent - firstSent <= 1000,
      `every request was sent within the 1 s (${lastSent - firstSent} ms)`,
    );
    await app.close();
  });

  it('--rate measures from the scheduled send time: a one-second stall shows in p99', async () => {
    const stallFrom = { at: 0 };
    const app = await startApp(() => {
      const now = Date.now();
      if (!stallFrom.at) stallFrom.at = now + 500;
      // Everything that arrives during [0.5 s, 1.5 s) is answered at 1.5 s.
      return { delayMs: now >= stallFrom.at && now < stallFrom.at + 1000 ? stallFrom.at + 1000 - now : 0 };
    });
    const run = await newRun();
    const result = await runCli(
      ['loadgen', '--url', app.url, '--rate', '100', '--duration', '3s', '--connections', '1', '--run', String(run)],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    const durations = (await rows(run)).map((r) => r.duration_ms).sort((a, b) => a - b);
    // The last few may be due but unsent at the deadline on a busy machine (20 is 200 ms late).
    assert.ok(durations.length >= 280 && durations.length <= 300, `${durations.length} requests at 100/s for 3 s`);
    const p99 = durations[Math.ceil(0.99 * durations.length) - 1];
    assert.ok(p99 > 800, `p99 ${p99} ms shows the stall`);
    // With one connection, requests queued behind the stall are late too: not hidden.
    assert.ok(durations.filter((d) => d > 100).length > 50, 'the requests due during the stall all show it');
    await app.close();
  });

  it('workers idle until a run is scheduled with its parameters, join it, and take the next without a restart', async () => {
    const app = await startApp(() => ({}));
    const workers = [0, 1].map((i) => startCli(['worker'], { ...env, CF_INSTANCE_INDEX: String(i) }));
    try {
      await waitFor(() => workers.every((w) => w.output.stderr.includes('waiting for runs')), { what: 'workers idle' });
      const counts = async (/** @type {number} */ run) =>
        (
          await db.query(
            'SELECT worker, count(*)::int AS n FROM loadgen_requests WHERE run_id = $1 GROUP BY worker ORDER BY worker',
            [run],
          )
        ).rows;
      const first = await newRun(['--meta', `url=${app.url}`, 'requests=100', 'parallel=2']);
      await waitFor(
        async () =>
          JSON.stringify(await counts(first)) ===
          JSON.stringify([
            { worker: 'instance-0', n: 100 },
            { worker: 'instance-1', n: 100 },
          ]),
        { what: 'both workers drove run 1' },
      );
      await runCli(['run', 'stop', String(first)], env);
      const second = await newRun(['--meta', `url=${app.url}`, 'requests=30', 'parallel=3']);
      await waitFor(
        async () =>
          JSON.stringify(await counts(second)) ===
          JSON.stringify([
            { worker: 'instance-0', n: 30 },
            { worker: 'instance-1', n: 30 },
          ]),
        { what: 'both workers drove run 2' },
      );
      assert.equal(app.seen.length, 260);
      // Issue 12 bug 5: a run a worker drove is ended when its load ends (it stayed open).
      const ended = await waitFor(
        async () => (await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [second])).rows[0].ended_at,
        { what: 'the workers ended run 2' },
      );
      assert.ok(ended instanceof Date);
    } finally {
      for (const w of workers) w.child.kill('SIGTERM');
      const exits = await Promise.all(workers.map((w) => w.exited));
      assert.deepEqual(exits, [
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      await app.close();
    }
  });

  // Issue 12 bug 5: the app was guessed from the host ("127") with no --app, and the run stayed open.
  it('a run loadgen creates has its --app and --label and is ended when the load ends, however it ends', async () => {
    const app = await startApp(() => ({}));
    try {
      const ok = await runCli(['loadgen', '--url', app.url, '--requests', '20', '--app', 'shop', '--label', 'L1'], env);
      assert.equal(ok.code, 0, ok.stderr);
      const failed = await runCli(
        ['loadgen', '--url', 'http://127.0.0.1:9/', '--requests', '3', '--max-error-ratio', '0'],
        env,
      );
      assert.equal(failed.code, 1, failed.stderr);
      const ids = [ok, failed].map((r) => Number(/^run (\d+) started/m.exec(r.stdout)?.[1]));
      const { rows: runs } = await db.query(
        'SELECT id, label, app_name, ended_at FROM test_runs WHERE id = ANY($1) ORDER BY id',
        [ids],
      );
      assert.deepEqual(
        runs.map((r) => [r.label, r.app_name, r.ended_at instanceof Date]),
        [
          ['L1', 'shop', true],
          ['loadgen 127.0.0.1:9', null, true],
        ],
      );
      assert.match(ok.stdout, new RegExp(`^next: paasmon ingest .*paasmon correlate --run ${ids[0]}$`, 'm'));
    } finally {
      await app.close();
    }
  });

  // Issue 12 bug 6: Ctrl-C killed loadgen with exit 130, no summary, the buffer lost and the run open.
  it('Ctrl-C: the summary of what was done, every request written, the run ended, exit 130', async () => {
    const app = await startApp(() => ({ delayMs: 20 }));
    const loadgen = startCli(['loadgen', '--url', app.url, '--duration', '60s', '--parallel', '4'], env);
    try {
      const run = await waitFor(() => Number(/^run (\d+) started/m.exec(loadgen.output.stdout)?.[1]), {
        what: `the run\n${loadgen.output.stderr}`,
      });
      await waitFor(() => app.seen.length > 100, { what: 'some requests sent' });
      loadgen.child.kill('SIGINT');
      const exit = await loadgen.exited;
      assert.deepEqual(exit, { code: 130, signal: null }, loadgen.output.stderr);
      const summarised = Number(/^ {2}Requests: +(\d+)$/m.exec(loadgen.output.stdout)?.[1]);
      const stored = (await rows(run)).length;
      // Requests in flight at the signal finished: every request the app saw is in the summary and stored.
      assert.equal(summarised, app.seen.length, loadgen.output.stdout);
      assert.equal(stored, app.seen.length);
      assert.match(loadgen.output.stdout, new RegExp(`run ${run}, worker .*: ${stored} requests recorded`));
      const { rows: ended } = await db.query('SELECT ended_at FROM test_runs WHERE id = $1', [run]);
      assert.ok(ended[0].ended_at instanceof Date, 'the run loadgen created is ended');
      assert.match(loadgen.output.stderr, /SIGINT: stopping/);
    } finally {
      if (loadgen.child.exitCode === null) loadgen.child.kill('SIGKILL');
      await app.close();
    }
  });

  // Issue 12 (friction): a JSON summary for scripts, checked against the stored rows.
  it('--summary-export writes the summary as JSON that agrees with the stored requests', async () => {
    const app = await startApp((n) => ({ status: n % 4 === 0 ? 503 : 200, delayMs: n % 10 }));
    const file = path.join(os.tmpdir(), `paasmon-summary-${process.pid}.json`);
    try {
      const result = await runCli(
        ['loadgen', '--url', app.url, '--requests', '200', '--parallel', '4', '--summary-export', file],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      const run = Number(/^run (\d+) started/m.exec(result.stdout)?.[1]);
      const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
      const stored = await rows(run);
      const durations = stored.map((r) => r.duration_ms).sort((a, b) => a - b);
      assert.equal(summary.run_id, run);
      assert.equal(summary.requests, 200);
      assert.deepEqual(summary.status_codes, { 200: 150, 503: 50 });
      assert.equal(summary.errors, 50);
      assert.deepEqual(summary.errors_by_kind, {});
      assert.ok(Math.abs(summary.latency_ms.min - durations[0]) < 1e-6, 'min exact');
      assert.ok(Math.abs(summary.latency_ms.max - durations.at(-1)) < 1e-6, 'max exact');
      // Nearest-rank p50 of the stored durations; HDR keeps 3 significant digits (+-0.1 %, >= 1 us).
      const p50 = durations[Math.ceil(0.5 * durations.length) - 1];
      assert.ok(
        Math.abs(summary.latency_ms.p50 - p50) <= Math.max(0.001 * p50, 0.002),
        `${summary.latency_ms.p50} ~ ${p50}`,
      );
      // The histogram is cumulative and ends with every request; each bucket counts what is <= its bound.
      assert.equal(summary.histogram.at(-1).le_ms, '+Inf');
      assert.equal(summary.histogram.at(-1).count, 200);
      for (const { le_ms: le, count } of summary.histogram.slice(0, -1)) {
        assert.equal(count, durations.filter((d) => d <= le).length, `le ${le}`);
      }
    } finally {
      fs.rmSync(file, { force: true });
      await app.close();
    }
  });

  it('a killed load generator loses at most the page being filled: what was sent over 3 s before is stored', async () => {
    /** @type {Array<[number, string]>} when each request arrived, and its id */
    const arrivals = [];
    const app = await startApp((n, req) => {
      arrivals.push([Date.now(), String(req.headers['x-correlation-id'])]);
      return {};
    });
    try {
      const run = await newRun();
      const loadgen = startCli(
        ['loadgen', '--url', app.url, '--duration', '30s', '--parallel', '4', '--run', String(run)],
        env,
      );
      await waitFor(async () => (await rows(run)).length > 0, { timeoutMs: 30_000, what: 'a page written' });
      // A few more pages (one a second while fewer than a page's rows come in), then the crash.
      await new Promise((r) => setTimeout(r, 5000));
      const killedAt = Date.now();
      loadgen.child.kill('SIGKILL');
      await loadgen.exited;
      const stored = new Set((await rows(run)).map((r) => r.correlation_id));
      // Pages go out when full or after a second, and take a moment to commit (longer on a busy machine).
      const early = arrivals.filter(([at]) => at < killedAt - 3000);
      assert.ok(early.length > 100, `${early.length} requests sent over 3 s before the kill`);
      const lost = early.filter(([, id]) => !stored.has(id)).length;
      assert.equal(lost, 0, `${lost} of the ${early.length} requests sent over 3 s before the kill were lost`);
      assert.ok(stored.size < arrivals.length, 'the page being filled is lost (the kill is a crash)');
      assert.ok(
        arrivals.length - stored.size <= 10_000 + 4,
        `lost ${arrivals.length - stored.size}: at most a page (10,000) and the requests in flight`,
      );
    } finally {
      await app.close();
    }
  });
});
