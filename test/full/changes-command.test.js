// `paasmon changes` as a user runs it, over runs stored in a real PostgreSQL: a shift placed in a
// history is found at its first run, a flat noisy history has none, and the real Apache Otava
// reading the view run_history through its PostgreSQL importer finds the same change points.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { noise } from '../support/noisy-series.js';
import { otavaChangePoints } from '../support/otava.js';
import { seedRun } from '../support/report-runs.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {Record<string, number[]>} run ids per label, oldest first */
const runs = {};
/** @type {Map<number, { ms: number, cpu: number }>} what each run was seeded with */
const seeded = new Map();
const RUNS = 30;
const SHIFT_AT = 18;

/**
 * A history of runs: e2e time of each run's requests (router response_time 0.8 of it, the seed's),
 * and CPU per poll, both with noise; requests and span the same, so throughput is constant.
 * @param {string} label @param {(i: number) => number} ms @param {number} seed
 */
async function seedHistory(label, ms, seed) {
  const next = noise(seed);
  const first = Date.now() - 40 * 86400_000;
  runs[label] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = { ms: Number((ms(i) + 0.4 * next()).toFixed(4)), cpu: 30 + 2 * next() };
    const id = await seedRun(db.query, {
      label,
      app: label.replace(/\W/g, '-'),
      instances: 1,
      coresPerInstance: 1,
      start: new Date(first + i * 86400_000),
      spanS: 10,
      successful: 40,
      durationSql: String(run.ms),
      cpuPolls: [run.cpu],
      pollS: 2,
    });
    runs[label].push(id);
    seeded.set(id, run);
  }
}

/** @param {string[]} args */
async function changes(args) {
  const { code, stdout, stderr } = await runCli(['changes', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  return { code, stdout, stderr };
}

before(async () => {
  db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  await seedHistory('checkout shift', (i) => (i < SHIFT_AT ? 20 : 23), 1);
  await seedHistory('checkout flat', () => 20, 2);
  await seedHistory('checkout steps', (i) => (i < 10 ? 24 : i < 21 ? 27 : 31), 3);
});

after(async () => {
  await db?.stop();
});

test("run_history: a row per ended run with run_summary's figures, the latency split and CPU per request", async () => {
  const { rows } = await db.query(
    "SELECT * FROM run_history WHERE label = 'checkout steps' ORDER BY started_at, run_id",
  );
  assert.deepEqual(
    rows.map((r) => Number(r.run_id)),
    runs['checkout steps'],
  );
  for (const row of rows) {
    const run = /** @type {{ ms: number, cpu: number }} */ (seeded.get(Number(row.run_id)));
    const close = (/** @type {number} */ a, /** @type {number} */ b, /** @type {string} */ what) =>
      assert.ok(Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
    close(row.e2e_mean_ms, run.ms, 'e2e mean');
    close(row.e2e_p95_ms, run.ms, 'e2e p95');
    // The seed's router records take 0.8 of each request's time: 0.2 of it is outside the router.
    close(row.router_mean_ms, 0.8 * run.ms, 'router mean');
    close(row.outside_router_mean_ms, 0.2 * run.ms, 'outside the router');
    close(row.throughput_rps, 40 / 10, 'throughput');
    // One instance at `cpu` % of a core, 4 successful requests a second: cpu / 100 / 4 s of CPU each.
    close(row.cpu_ms_per_request, ((run.cpu / 100) * 1000) / 4, 'CPU per request');
    close(row.mem_bytes_avg, 256 * 1048576, 'memory');
    assert.equal(row.error_ratio, 0);
  }
  await db.query("INSERT INTO test_runs (label, app_name, started_at) VALUES ('checkout steps', 'x', now())");
  const live = await db.query("SELECT count(*)::int AS n FROM run_history WHERE label = 'checkout steps'");
  assert.equal(live.rows[0].n, RUNS, 'a run not ended is not history yet');
});

test('a shift placed in the history is found at its first run, a regression behind the router', async () => {
  const { code, stdout, stderr } = await changes(['--label', 'checkout shift', '--format', 'json']);
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.runs.length, RUNS);
  const e2e = result.change_points.find((/** @type {any} */ c) => c.figure === 'e2e_mean_ms');
  assert.ok(e2e, stdout);
  assert.equal(e2e.run_id, runs['checkout shift'][SHIFT_AT]);
  assert.equal(e2e.previous_run_id, runs['checkout shift'][SHIFT_AT - 1]);
  assert.equal(e2e.direction, 'regression');
  assert.ok(Math.abs(e2e.mean_after - e2e.mean_before - 3) < 0.5, `about 3 ms slower: ${stdout}`);
  // The seed's router response_time is 0.8 of e2e and its gorouter_time does not follow e2e: the
  // app behind the router moved about 2.4 ms, the client side 0.6, the router itself next to nothing.
  assert.equal(e2e.layer, 'behind_router');
  const { router, behind_router: behind } = e2e.layer_change_ms;
  assert.ok(Math.abs(router + behind - 0.8 * (e2e.mean_after - e2e.mean_before)) < 1e-6);
  assert.ok(Math.abs(router) < 0.01, `the router's own time did not move: ${router}`);
  assert.deepEqual(
    result.change_points.filter((/** @type {any} */ c) => c.figure === 'throughput_rps'),
    [],
    'constant throughput has no change point',
  );
  const table = await changes(['--label', 'checkout shift', '--figure', 'e2e_p95_ms']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /30 ended runs of label "checkout shift".*: 1 change point\./);
  assert.match(table.stdout, new RegExp(`^\\s*${runs['checkout shift'][SHIFT_AT]}\\s+e2e_p95_ms .* regression`, 'm'));
});

test('a flat noisy history has no change point', async () => {
  const { code, stdout, stderr } = await changes(['--label', 'checkout flat', '--format', 'json']);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout).change_points, []);
  const md = await changes(['--app', 'checkout-flat', '--format', 'md']);
  assert.match(md.stdout, /30 ended runs of app checkout\\-flat .*: no change point\./);
});

test('Otava reading the view run_history through its PostgreSQL importer finds the same change points', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-otava-pg-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The otava.yaml of docs/comparing-runs.md, as a user copies it.
  const docs = fs.readFileSync(new URL('../../docs/comparing-runs.md', import.meta.url), 'utf8');
  const yaml = /```yaml\n(tests:\n {2}run_history:\n[\s\S]*?)```/.exec(docs)?.[1];
  assert.ok(yaml, 'docs/comparing-runs.md has the otava.yaml of run_history');
  const metrics = [...yaml.matchAll(/^ {6}(\w+): \{direction/gm)].map((m) => m[1]);
  assert.ok(metrics.includes('e2e_mean_ms') && metrics.includes('cpu_ms_per_request'), yaml);
  const configFile = path.join(dir, 'otava.yaml');
  fs.writeFileSync(configFile, yaml);
  const url = new URL(db.url);
  const env = {
    POSTGRES_HOSTNAME: url.hostname,
    POSTGRES_PORT: url.port,
    POSTGRES_USERNAME: decodeURIComponent(url.username),
    POSTGRES_PASSWORD: decodeURIComponent(url.password),
    POSTGRES_DATABASE: url.pathname.slice(1),
  };
  let found = 0;
  for (const label of Object.keys(runs)) {
    const otava = (await otavaChangePoints(configFile, ['run_history'], env, ['--branch', label])).run_history;
    const { stdout } = await changes(['--label', label, '--min-segment', '1', '--format', 'json']);
    const points = JSON.parse(stdout).change_points;
    for (const m of metrics) {
      const ours = points.filter((/** @type {any} */ c) => c.figure === m).map((/** @type {any} */ c) => c.index);
      assert.deepEqual(ours, otava[m] ?? [], `${label}: ${m}`);
      found += ours.length;
    }
  }
  assert.ok(found >= 8, `the histories have change points to agree on (${found})`);
});

test('bad usage exits 2 with one line naming what to do', async () => {
  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [[], /one of --label L or --app A/],
    [['--label', 'x', '--app', 'y'], /one of --label L or --app A/],
    [['--label', 'checkout flat', '--figure', 'p95'], /--figure must be one of throughput_rps, /],
    [['--label', 'checkout flat', '--format', 'html'], /--format must be one of table, md, json/],
    [['--label', 'checkout flat', '--min-segment', '0'], /--min-segment must be a whole number of at least 1/],
    [['--label', 'nobody'], /no ended run of label "nobody"/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await changes(args);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '');
    assert.match(stderr, message);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
  }
});
