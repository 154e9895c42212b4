// `paasmon compare` on the sandbox: real runs of the load generator through a latency proxy (the
// network) and the gorouter stand-in to an app instance, the stand-in's access log ingested. A delay
// put into one layer at a time: the network before the router (outside: e2e − response_time), the
// router itself (gorouter_time), the app (behind: response_time − gorouter_time). Each regresses and
// names its layer, the reverse improves, the same setting twice does not regress; nothing polled the
// platform, so CPU per request leaves the gate with a line saying how to collect it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAppInstances, startGorouterStandin } from '../../sandbox/gorouter-standin.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { startLatencyProxy } from '../support/latency-proxy.js';

/** The app's own time, and the delay put into one layer, ms. */
const APP = 4;
const DELAY = 50;
// One round: the same closed load for 2 s. A stall of a busy machine slows only the requests in
// flight, so rounds of many quick requests keep the baseline's p95 clear of it.
const LOAD = ['--duration', '2s', '--parallel', '4', '--warmup', '500ms'];
/** Each setting: where DELAY goes (nowhere for the baseline and its second set of rounds). */
const SETTINGS = {
  base: {},
  again: {},
  outside: { network: DELAY },
  router: { router: DELAY },
  behind: { app: DELAY },
};
const LAYERS = /** @type {const} */ ([
  ['outside', 'outside_router'],
  ['router', 'router'],
  ['behind', 'behind_router'],
]);

describe('paasmon compare on the sandbox, a delay in each layer', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startAppInstances>>} */
  let apps;
  /** @type {Awaited<ReturnType<typeof startGorouterStandin>>} */
  let router;
  /** @type {Awaited<ReturnType<typeof startLatencyProxy>>} */
  let network;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-compare-'));
  const logFile = path.join(dir, 'access.log');
  /** @type {{ network?: number, router?: number, app?: number }} */
  let now = {};
  const env = () => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });

  before(async () => {
    db = await startTestDatabase();
    apps = await startAppInstances(1, (_i, _req, res) =>
      setTimeout(() => res.writeHead(200).end('ok'), APP + (now.app ?? 0)),
    );
    router = await startGorouterStandin({
      backends: apps.urls,
      appGuid: '6a1c9e1e-5b0f-4f57-9d59-2f3a8c0b7d11',
      host: 'shop.apps.example.com',
      logFile,
      extraHeaders: ['X-Correlation-Id'],
      routerDelayMs: () => now.router ?? 0,
    });
    network = await startLatencyProxy(router.url, { rttMs: () => now.network ?? 0 });
    // Rounds interleaved (every setting once, three times), as a pipeline runs them.
    for (let k = 0; k < 3; k++) {
      for (const [label, setting] of Object.entries(SETTINGS)) {
        now = setting;
        const args = ['loadgen', '--url', `${network.url}/items`, ...LOAD, '--app', 'shop', '--label', label];
        const load = await runCli(args, env());
        assert.equal(load.code, 0, load.stderr);
      }
    }
    now = {};
    const ingest = await runCli(['ingest', '--file', logFile, '--app', 'shop'], env());
    assert.equal(ingest.code, 0, ingest.stderr);
  });
  after(async () => {
    await network?.close();
    await router?.close();
    apps?.close();
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** @param {string} baseline @param {string} candidate */
  const compare = async (baseline, candidate) => {
    const args = ['--baseline', `label:${baseline}`, '--candidate', `label:${candidate}`];
    const run = await runCli(['compare', ...args, '--format', 'json', '--seed', '3'], env());
    assert.ok(run.stdout.startsWith('{'), `${run.stdout}\n${run.stderr}`);
    return { code: run.code, result: JSON.parse(run.stdout) };
  };

  for (const [setting, layer] of LAYERS) {
    it(`regresses on a delay ${layer} and names that layer; the reverse improves`, async () => {
      const { code, result } = await compare('base', setting);
      assert.equal(result.verdict, 'regressed', result.headline);
      assert.equal(code, 3);
      assert.equal(result.layer, layer, JSON.stringify(result.layers.mean));
      const moved = result.layers.mean.layers.find((/** @type {any} */ l) => l.layer === layer);
      // The delay's own timer fires no sooner and a little later on a busy machine.
      assert.ok(moved.change_ms > DELAY * 0.8 && moved.change_ms < DELAY * 1.6, JSON.stringify(moved));
      assert.ok(moved.share > 0.8, JSON.stringify(result.layers.mean));
      for (const other of result.layers.mean.layers.filter((/** @type {any} */ l) => l.layer !== layer))
        assert.ok(Math.abs(other.change_ms) < DELAY * 0.2, JSON.stringify(result.layers.mean));
      assert.equal(result.figures.find((/** @type {any} */ f) => f.name === 'e2e_p95_ms').verdict, 'regressed');
      const cpu = result.figures.find((/** @type {any} */ f) => f.name === 'cpu_ms_per_request');
      assert.equal(cpu.verdict, 'missing');
      assert.match(result.missing.join('\n'), /no instance samples of app shop .*paasmon collect/);

      const reverse = await compare(setting, 'base');
      assert.equal(reverse.result.verdict, 'improved', reverse.result.headline);
      assert.equal(reverse.code, 0);
      assert.equal(reverse.result.layer, layer);
    });
  }

  it('does not regress on the same setting twice', async () => {
    const { code, result } = await compare('base', 'again');
    assert.notEqual(result.verdict, 'regressed', result.headline);
    assert.notEqual(result.verdict, 'improved', result.headline);
    assert.notEqual(code, 3);
    assert.equal(result.layer, null);
  });
});
