// `paasmon poll` as a process, against the simulator and a real PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { openDatabase } from '../../exporters/postgres/database.js';
import { stopEmbeddedServer } from '../../exporters/postgres/embedded/server.js';
import { SPACE_GUID, makeApp, makeApps, noFaults, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

describe('paasmon poll', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  const apps = [
    ...makeApps(2, 2),
    makeApp('mixed', [
      { state: 'RUNNING', cpu: 2.29, cpuEntitlement: 1.5, mem: 912261120, disk: 207618048, uptime: 86461 },
      { state: 'STARTING' },
      { state: 'DOWN' },
    ]),
  ];
  /** @type {Record<string, string>} */
  let env;

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps })]);
    env = {
      DATABASE_URL: db.url,
      CF_API: sim.url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: 'admin-secret',
      CF_APPS: 'app-0,app-1,mixed',
      CF_SPACE_GUID: SPACE_GUID,
    };
  });
  after(async () => {
    await sim.close();
    await db.stop();
  });
  beforeEach(async () => {
    Object.assign(sim.faults, noFaults());
    // A new database each test: every table, view and function of every migration goes.
    await db.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  });

  /** Rows of the last poll, as stored. */
  const rows = async () =>
    (
      await db.query(`SELECT app_name, process_type, instance_index, state, cpu_percent, cpu_entitlement_percent,
      mem_bytes, mem_quota_bytes, disk_bytes, disk_quota_bytes, uptime_s FROM instance_samples ORDER BY app_name, instance_index`)
    ).rows;

  /** The rows the simulator's specs imply, computed without paasmon's parser. */
  const expectedRows = () =>
    apps.flatMap((a) =>
      a.processes[0].instances.map((inst, i) => {
        const running = inst.state === 'RUNNING';
        const quotas = inst.state !== 'DOWN' && inst.state !== 'STARTING';
        return {
          app_name: a.name,
          process_type: 'web',
          instance_index: i,
          state: inst.state,
          cpu_percent: running ? /** @type {number} */ (inst.cpu) * 100 : null,
          cpu_entitlement_percent: running ? /** @type {number} */ (inst.cpuEntitlement) * 100 : null,
          mem_bytes: running ? inst.mem : null,
          mem_quota_bytes: quotas ? 256 * 1048576 : null,
          disk_bytes: running ? inst.disk : null,
          disk_quota_bytes: quotas ? 1024 * 1048576 : null,
          uptime_s: inst.state === 'DOWN' || inst.state === 'STARTING' ? 0 : inst.uptime,
        };
      }),
    );

  it('writes exactly one row per instance and prints the table', async () => {
    const result = await runCli(['poll'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await rows(), expectedRows());
    assert.match(
      result.stdout,
      /^app\s+process\s+#\s+state\s+cpu % of core\s+cpu % of entitlement\s+memory MiB \/ quota\s+disk MiB \/ quota\s+uptime$/m,
    );
    assert.match(
      result.stdout,
      /^mixed\s+web\s+0\s+RUNNING\s+229\.0\s+150\.0\s+870\.0 \/ 256\s+198\.0 \/ 1024\s+1d00h01m$/m,
    );
    assert.match(result.stdout, /^7 samples written at \S+Z/m);
    const ts = (await db.query('SELECT DISTINCT ts FROM instance_samples')).rows;
    assert.equal(ts.length, 1, 'one timestamp per poll for every instance');
    const migrations = (await db.query('SELECT name FROM paasmon_migrations')).rows.map((r) => r.name);
    const files = fs
      .readdirSync(new URL('../../sql/migrations/', import.meta.url))
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((f) => f.replace(/\.sql$/, ''));
    assert.deepEqual(migrations, files, 'every migration applied, in order');
    assert.equal(migrations[0], '001_schema');
  });

  it('recovers from every fault at once with nothing lost', async () => {
    Object.assign(sim.faults, {
      tokenLifetimeSeconds: 30,
      invalidAuthTokenOnce: 1,
      rateLimited: 1,
      retryAfterSeconds: 1,
      statsUnavailable: 2,
      dropConnections: 2,
      serverErrors: 1,
      latencyMs: 30,
      pageSize: 1,
    });
    const grantsBefore = Object.values(sim.counters.grants).reduce((a, b) => a + b, 0);
    const result = await runCli(['poll'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await rows(), expectedRows());
    assert.match(result.stderr, /retrying request/);
    // Each one-shot fault counts down when it fires: all of them must have been met.
    for (const fault of /** @type {const} */ ([
      'invalidAuthTokenOnce',
      'rateLimited',
      'statsUnavailable',
      'dropConnections',
      'serverErrors',
    ])) {
      assert.equal(sim.faults[fault], 0, `fault ${fault} fired`);
    }
    const grants = Object.values(sim.counters.grants).reduce((a, b) => a + b, 0) - grantsBefore;
    assert.ok(grants >= 2, `the invalid token was replaced by a new grant (${grants} grants)`);
  });

  it('stores usage {} as null usage (never zero) and counts it as a warning', async () => {
    sim.faults.emptyUsage = true;
    const result = await runCli(['poll'], { ...env, CF_APPS: 'app-0' });
    assert.equal(result.code, 0, result.stderr);
    const stored = await rows();
    assert.deepEqual(
      stored.map((r) => [r.state, r.cpu_percent, r.mem_bytes, r.mem_quota_bytes]),
      [
        ['RUNNING', null, null, null],
        ['RUNNING', null, null, null],
      ],
    );
    assert.equal((result.stderr.match(/usage is empty/g) ?? []).length, 2);
    assert.match(result.stderr, /Stats server temporarily unavailable\./);
  });

  // Issue 12 bug 7: CF_APPS=bulletin-java,nosuchapp exited 0 and the table quietly left the app out.
  it('fails naming an app of CF_APPS that does not exist, and still writes the others', async () => {
    const result = await runCli(['poll'], { ...env, CF_APPS: 'app-0,nosuchapp' });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^paasmon: poll: app "nosuchapp" not found.* \(check CF_APPS\)$/m);
    assert.match(result.stdout, /^app-0\s+web\s+0\s/m);
    const names = (await db.query('SELECT DISTINCT app_name FROM instance_samples')).rows.map((r) => r.app_name);
    assert.deepEqual(names, ['app-0']);
  });

  it('exits 1 with a clear message on bad credentials, never logging the password', async () => {
    const result = await runCli(['poll'], { ...env, CF_PASSWORD: 'wrong-password-123' });
    assert.equal(result.code, 1);
    // Failures on stderr, results on stdout (issue 12).
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /poll failed: cloud-controller: resolving watched apps: UAA refused the password grant \(unauthorized: Bad credentials\)/,
    );
    assert.ok(!result.stderr.includes('wrong-password-123') && !result.stdout.includes('wrong-password-123'));
  });

  it('exits 1 with a clear message when the API is unreachable', async () => {
    const result = await runCli(
      ['poll'],
      { ...env, CF_API: 'http://127.0.0.1:9', CF_TIMEOUT: '1s' },
      { timeoutMs: 120_000 },
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /poll failed: cloud-controller: resolving watched apps: GET \/ failed: ECONNREFUSED/);
  });

  it('exits 2 naming the variable on invalid configuration', async () => {
    const result = await runCli(['poll'], { ...env, POLL_SCHEDULE: 'every 5s' });
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^paasmon: invalid configuration: POLL_SCHEDULE must be a cron expression with seconds/,
    );
  });

  // Guards issue 12 bug 1: the embedded server used to stop when the command that started it
  // ended, under any other command using it. Now it outlives every command until `db stop`.
  it('starts an embedded PostgreSQL under PAASMON_DATA_DIR that outlives the command, until db stop', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-data-'));
    fs.chmodSync(dataDir, 0o755);
    const local = { ...env, DATABASE_URL: '', PAASMON_DATA_DIR: dataDir };
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    try {
      const pids = [];
      for (let i = 0; i < 2; i++) {
        const result = await runCli(['poll'], local, { timeoutMs: 120_000 });
        assert.equal(result.code, 0, result.stderr);
        pids.push(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
        await new Promise((r) => setTimeout(r, 5)); // distinct poll timestamps
      }
      assert.equal(pids[0], pids[1], 'the second poll joined the server the first one left running');
      const port = fs.readFileSync(pidFile, 'utf8').split('\n')[3];
      const stop = await runCli(['db', 'stop'], local);
      assert.equal(stop.code, 0, stop.stderr);
      assert.match(stop.stdout, /embedded PostgreSQL stopped/);
      assert.ok(!fs.existsSync(pidFile), 'db stop stopped the server');
      const status = await runCli(['db', 'status'], local);
      assert.match(status.stdout, /embedded PostgreSQL: stopped/);
      const migrate = await runCli(['migrate'], local, { timeoutMs: 120_000 });
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.equal(migrate.stdout.trim(), 'schema is up to date');
      assert.equal(fs.readFileSync(pidFile, 'utf8').split('\n')[3], port, 'restarted on the port recorded');
      // Reopened the way paasmon does: both polls are still there (2 polls x 7 instances).
      const database = await openDatabase(loadConfig({ PAASMON_DATA_DIR: dataDir }), {
        log: pino({ level: 'silent' }),
      });
      try {
        const counts = (
          await database.pool.query('SELECT count(*) AS n, count(DISTINCT ts) AS polls FROM instance_samples')
        ).rows[0];
        assert.deepEqual(counts, { n: 14, polls: 2 });
      } finally {
        await database.close();
      }
    } finally {
      await stopEmbeddedServer(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
