// `paasmon compare` on the sandbox: real runs of the load generator through the gorouter stand-in
// to an app instance, the stand-in's access log ingested, then a delay put into the app (behind the
// router, 4 ms to 40 ms): the comparison regresses and names that layer; nothing polled the platform, so CPU per
// request leaves the gate with a line saying how to collect it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAppInstances, startGorouterStandin } from '../../sandbox/gorouter-standin.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

describe('paasmon compare on the sandbox', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startAppInstances>>} */
  let apps;
  /** @type {Awaited<ReturnType<typeof startGorouterStandin>>} */
  let router;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-compare-'));
  const logFile = path.join(dir, 'access.log');
  let delayMs = 4;

  before(async () => {
    db = await startTestDatabase();
    apps = await startAppInstances(1, (_i, _req, res) => setTimeout(() => res.writeHead(200).end('ok'), delayMs));
    router = await startGorouterStandin({
      backends: apps.urls,
      appGuid: '6a1c9e1e-5b0f-4f57-9d59-2f3a8c0b7d11',
      host: 'shop.apps.example.com',
      logFile,
      extraHeaders: ['X-Correlation-Id'],
    });
  });
  after(async () => {
    await router?.close();
    apps?.close();
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('regresses when the app is slower, and names the layer behind the router', async () => {
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
    const round = async (/** @type {string} */ label) => {
      const start = await runCli(
        ['run', 'start', '--label', label, '--app', 'shop', '--instances', '1', '--parallel', '4'],
        env,
      );
      const runId = start.stdout.trim();
      const load = await runCli(
        ['loadgen', '--url', `${router.url}/items`, '--requests', '400', '--parallel', '4', '--run', runId],
        env,
      );
      assert.equal(load.code, 0, load.stderr);
      await runCli(['run', 'stop', runId], env);
    };
    for (let k = 0; k < 3; k++) await round('app');
    delayMs = 40;
    for (let k = 0; k < 3; k++) await round('app slower');
    const ingest = await runCli(['ingest', '--file', logFile, '--app', 'shop'], env);
    assert.equal(ingest.code, 0, ingest.stderr);

    const compare = await runCli(
      ['compare', '--baseline', 'label:app', '--candidate', 'label:app slower', '--format', 'json', '--seed', '3'],
      env,
    );
    const result = JSON.parse(compare.stdout);
    assert.equal(compare.code, 3, `${result.headline}\n${compare.stderr}`);
    assert.equal(result.verdict, 'regressed');
    assert.equal(result.layer, 'behind_router');
    const behind = result.layers.mean.layers.find((/** @type {any} */ l) => l.layer === 'behind_router');
    assert.ok(behind.change_ms > 25 && behind.change_ms < 50, JSON.stringify(behind));
    assert.ok(behind.share > 0.8, JSON.stringify(result.layers.mean));
    const cpu = result.figures.find((/** @type {any} */ f) => f.name === 'cpu_ms_per_request');
    assert.equal(cpu.verdict, 'missing');
    assert.match(result.missing.join('\n'), /no instance samples of app shop .*paasmon collect/);
  });
});
