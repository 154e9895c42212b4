// paasmon import: a tool's results into a new or an existing run, the run's window from the
// requests, the same file again adds nothing, unreadable lines counted and failing past the
// ratio, unknown content refused in one line, and correlate naming a tool that recorded no ids.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RUNS_SQL } from '../../dashboards/src/runs.js';
import { recordIdsHint } from '../../collector/sources/load-results/formats.js';
import { CLI, childEnv, runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { expandSql } from '../support/grafana.js';

const JTL_HEADER =
  'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,' +
  'sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect,"paasmon_id"';
const T0 = Date.parse('2026-11-25T10:00:00Z');

/** @param {number} n @param {number} bad unreadable lines among them */
function jtl(n, bad) {
  const lines = [JTL_HEADER];
  for (let i = 0; i < n; i++) {
    const failed = i % 10 === 3;
    lines.push(
      [
        T0 + i * 5,
        10 + (i % 7),
        '"GET /items, page 1"',
        failed ? 503 : 200,
        failed ? 'Service Unavailable' : 'OK',
        'users 1-1',
        'text',
        !failed,
        '',
        120,
        150,
        1,
        1,
        'http://shop/items',
        5,
        0,
        1,
        crypto.randomUUID(),
      ].join(','),
    );
    if (i < bad) lines.push(`${T0 + i},not-a-number,GET /,200,OK,u,,true,,1,1,1,1,http://shop/,1,0,0,x`);
  }
  return `${lines.join('\n')}\n`;
}

describe('paasmon import', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-import-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stores every request once, with the tool, and sets a new run window from first send to last completion', async () => {
    const env = { DATABASE_URL: db.url };
    const file = path.join(dir, 'results.jtl');
    fs.writeFileSync(file, jtl(1000, 2));
    const first = await runCli(['import', file, '--app', 'shop', '--label', 'jmeter 1', '--instances', '2'], env);
    assert.equal(first.code, 0, first.stderr);
    const runId = Number(/into run (\d+)/.exec(first.stdout)?.[1]);
    assert.match(
      first.stdout,
      /^1000 requests read from .*results\.jtl \(jmeter\) into run \d+, 1000 new rows, 1000 with the tool's correlation ids; skipped: bad_number=2 \(e\.g\. line 3: /m,
    );
    const again = await runCli(['import', file, '--run', String(runId)], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /1000 requests read .*, 0 new rows/);

    const rows = (
      await db.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE error IS NOT NULL)::int AS errors,
           min(tool) AS tool, min(url) AS url, sum(bytes)::int AS bytes FROM loadgen_requests WHERE run_id = $1`,
        [runId],
      )
    ).rows[0];
    assert.deepEqual(rows, { n: 1000, errors: 100, tool: 'jmeter', url: 'http://shop/items', bytes: 120_000 });
    const run = (await db.query('SELECT started_at, ended_at, meta, instances FROM test_runs WHERE id = $1', [runId]))
      .rows[0];
    assert.equal(run.started_at.getTime(), T0);
    // The last request starts at T0 + 999 * 5 ms and takes 10 + 999 % 7 ms.
    assert.equal(run.ended_at.getTime(), T0 + 999 * 5 + 10 + (999 % 7));
    assert.deepEqual([run.meta.tool, run.instances], ['jmeter', 2]);
  });

  it('fails past --max-skipped-ratio, naming the reason with an example', async () => {
    const env = { DATABASE_URL: db.url };
    const file = path.join(dir, 'bad.jtl');
    fs.writeFileSync(file, jtl(100, 5));
    const result = await runCli(['import', file, '--app', 'shop', '--label', 'bad'], env);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^paasmon: import: 5 lines unreadable \(4\.76 % > 1 %, --max-skipped-ratio\); most for bad_number \(5\), e\.g\. line 3: \d+,not-a-number/,
    );
    const ok = await runCli(['import', file, '--app', 'shop', '--label', 'bad', '--max-skipped-ratio', '0.05'], env);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('refuses a bad flag in one line (exit 2)', async () => {
    const env = { DATABASE_URL: db.url };
    const file = path.join(dir, 'flags.jtl');
    fs.writeFileSync(file, jtl(3, 0));
    const both = await runCli(['import', file, '--run', '1', '--app', 'shop'], env);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give either --run ID or --app A --label L/);
    const format = await runCli(['import', file, '--run', '1', '--format', 'csv'], env);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /^paasmon: invalid configuration: --format must be one of k6-json, /);
  });

  // Issue 44 item 8: such files made an empty run and exited 0, or were called invalid configuration.
  it('names a file without requests, or one it cannot read, in one line (exit 1), and leaves no run behind', async () => {
    const env = { DATABASE_URL: db.url };
    const runs = async () => (await db.query('SELECT count(*)::int AS n FROM test_runs')).rows[0].n;
    const existing = Number(
      (await runCli(['run', 'start', '--app', 'shop', '--label', 'to import into'], env)).stdout.trim(),
    );
    const before = await runs();
    /** @type {Array<[name: string, content: string | undefined, extra: string[], says: RegExp]>} */
    const cases = [
      ['header.jtl', `${JTL_HEADER}\n`, [], /header\.jtl holds no requests: only a header, or nothing; nothing/],
      [
        'hey-header.csv',
        'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n',
        ['--started-at', '2026-11-25T11:00:00Z'],
        /hey-header\.csv holds no requests: only a header, or nothing; nothing imported$/,
      ],
      ['empty.jtl', '', [], /empty\.jtl holds no requests: it is empty; nothing imported$/],
      [
        'unreadable.jtl',
        `${JTL_HEADER}\n1,not-a-number,GET /,200,OK,u,,true,,1,1,1,1,http://shop/,1,0,0,x\n`,
        [],
        /unreadable\.jtl holds no requests: 1 lines unreadable \(bad_number, e\.g\. line 2: 1,not-a-number/,
      ],
      [
        'notes.txt',
        'hello\nworld\n',
        [],
        /notes\.txt is not a results file paasmon knows: its first line "hello" is no known result format; give --format k6-json\|/,
      ],
      ['nope.csv', undefined, [], /^paasmon: cannot read results file .*nope\.csv: no such file$/],
      ['a-directory', undefined, [], /^paasmon: cannot read results file .*a-directory: it is a directory$/],
    ];
    fs.mkdirSync(path.join(dir, 'a-directory'));
    for (const [name, content, extra, says] of cases) {
      const file = path.join(dir, name);
      if (content !== undefined) fs.writeFileSync(file, content);
      for (const target of [
        ['--app', 'shop', '--label', name],
        ['--run', String(existing)],
      ]) {
        const result = await runCli(['import', file, ...target, ...extra], env);
        assert.equal(result.code, 1, `${name}: ${result.stderr}`);
        assert.match(result.stderr.trimEnd(), says);
        assert.match(result.stderr, /^paasmon: [^\n]*\n$/, 'one line');
        assert.doesNotMatch(result.stderr, /invalid configuration/);
        assert.equal(result.stdout, '');
      }
    }
    assert.equal(await runs(), before, 'no run made');
    const run = (await db.query('SELECT meta FROM test_runs WHERE id = $1', [existing])).rows[0];
    assert.equal(run.meta.tool, undefined, 'the existing run is untouched');
  });

  it('calls a file it may not read that, before it opens the database', async () => {
    const file = path.join(dir, 'secret.jtl');
    fs.writeFileSync(file, jtl(3, 0), { mode: 0o600 });
    // Root reads any file: the command then runs as nobody, to whom the file is closed.
    const asNobody = process.getuid?.() === 0;
    if (!asNobody) fs.chmodSync(file, 0o000);
    const child = spawnSync(CLI, ['import', file, '--run', '1'], {
      env: childEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }),
      encoding: 'utf8',
      ...(asNobody ? { uid: 65534, gid: 65534 } : {}),
    });
    assert.equal(child.status, 1, child.stderr);
    assert.equal(child.stderr, `paasmon: cannot read results file ${file}: permission denied\n`);
  });

  it('takes hey offsets from --started-at, and correlate says that hey recorded no ids and how to get them', async () => {
    const env = { DATABASE_URL: db.url };
    const file = path.join(dir, 'hey.csv');
    fs.writeFileSync(
      file,
      'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n' +
        '0.0100,0.0002,0.0000,0.0002,0.0090,0.0001,200,0.0011\n0.0200,0,0,0,0.019,0.001,200,0.5000\n',
    );
    const runsBefore = (await db.query('SELECT count(*)::int AS n FROM test_runs')).rows[0].n;
    const unplaced = await runCli(['import', file, '--app', 'shop', '--label', 'hey'], env);
    assert.equal(unplaced.code, 2);
    assert.match(unplaced.stderr, /^paasmon: .*hey's offsets are relative to its start: give --started-at TIME/);
    assert.equal(unplaced.stderr.trim().split('\n').length, 1);
    assert.equal((await db.query('SELECT count(*)::int AS n FROM test_runs')).rows[0].n, runsBefore, 'no run left');
    const result = await runCli(
      ['import', file, '--app', 'shop', '--label', 'hey', '--started-at', '2026-11-25T11:00:00Z'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    const runId = Number(/into run (\d+)/.exec(result.stdout)?.[1]);
    const rows = (
      await db.query('SELECT started_at, duration_ms FROM loadgen_requests WHERE run_id = $1 ORDER BY started_at', [
        runId,
      ])
    ).rows.map((r) => [r.started_at.toISOString(), r.duration_ms]);
    assert.deepEqual(rows, [
      ['2026-11-25T11:00:00.001Z', 10],
      ['2026-11-25T11:00:00.500Z', 20],
    ]);
    const correlate = await runCli(['correlate', '--run', String(runId)], env);
    assert.equal(correlate.code, 0, correlate.stderr);
    assert.match(
      correlate.stdout,
      new RegExp(
        `^run ${runId}: hey recorded no correlation ids for 2 of 2 requests: .*time window only.*X-Correlation-Id`,
        'm',
      ),
    );
    assert.ok(correlate.stdout.includes(/** @type {string} */ (recordIdsHint('hey'))), correlate.stdout);
    // Runs of different tools in one comparison, each naming its tool.
    const report = await runCli(['report', '--runs', `1,${runId}`, '--format', 'json', '--trim', '0'], env);
    assert.equal(report.code, 0, report.stderr);
    const runs = JSON.parse(report.stdout).runs;
    assert.deepEqual(
      runs.map((/** @type {any} */ r) => [r.run_id, r.meta.tool, r.requests]),
      [
        [1, 'jmeter', 1000],
        [runId, 'hey', 2],
      ],
    );
    // The runs dashboard's table names each run's tool.
    const sql = expandSql(RUNS_SQL, { from: new Date(0), to: new Date(), interval: '1m', variables: {} });
    const tools = (await db.query(sql)).rows
      .map((/** @type {any} */ r) => [Number(r.run_id), r.tool])
      .filter(([id]) => id === 1 || id === runId);
    assert.deepEqual(
      tools.sort((a, b) => a[0] - b[0]),
      [
        [1, 'jmeter'],
        [runId, 'hey'],
      ],
    );
  });
});
