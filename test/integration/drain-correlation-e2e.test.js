// End to end without any search server: run start -> loadgen -> gorouter stand-in -> (syslog agent
// stand-in, https-batch) -> the collector's drain -> PostgreSQL -> correlate: 100 % matched.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { runCli, waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { startGorouterStandin } from '../../sandbox/gorouter-standin.js';
import { logMessage, rtrEnvelope, startHttpsBatchWriter } from '../support/syslog-agent-standin.js';

const TOKEN = 'e2e-drain-token-0123456789';

describe('correlation end to end through the syslog drain', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {http.Server[]} */
  const apps = [];
  /** @type {ReturnType<typeof import('../support/cli.js').startCli> | undefined} */
  let collector;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-drain-e2e-'));
  const appGuid = '5d0c7a4e-2b1f-4c3d-9e8f-7a6b5c4d3e2f';

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
    for (let i = 0; i < 2; i++) {
      const app = http.createServer((req, res) => setTimeout(() => res.writeHead(200).end('hello'), 1 + i * 2));
      app.keepAliveTimeout = 30_000;
      app.listen(0, '127.0.0.1');
      await once(app, 'listening');
      apps.push(app);
    }
  });
  after(async () => {
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGTERM');
      await collector.exited;
    }
    for (const app of apps) {
      app.closeAllConnections();
      app.close();
    }
    await sim.close();
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('matches every load-generator request with its router line', async () => {
    const started = await startCollect(collectEnv(db, sim, { DRAIN_TOKEN: TOKEN }));
    collector = started.cli;
    const { base } = started;
    const agent = startHttpsBatchWriter(`${base}/drain?token=${TOKEN}`);
    const router = await startGorouterStandin({
      backends: apps.map((a) => `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (a.address()).port}`),
      appGuid,
      host: 'shop.apps.example.com',
      logFile: path.join(dir, 'access.log'),
      extraHeaders: ['X-Correlation-Id'],
      onLine: (line) => agent.write(logMessage(rtrEnvelope(line, { appGuid, appName: 'shop' }))),
    });
    try {
      const env = { DATABASE_URL: db.url };
      const start = await runCli(['run', 'start', '--label', 'drain e2e', '--app', 'shop', '--instances', '2'], env);
      const runId = Number(start.stdout.trim());
      const load = await runCli(
        ['loadgen', '--url', `${router.url}/items`, '--requests', '600', '--parallel', '6', '--run', String(runId)],
        env,
      );
      assert.equal(load.code, 0, load.stderr);
      assert.equal((await runCli(['run', 'stop', String(runId)], env)).code, 0);
      await router.close();
      await agent.close();

      const health = async () =>
        /** @type {any} */ (await (await fetch(`${base}/healthz`)).json()).sources['syslog-drain'];
      await waitFor(async () => (await health()).inserted === 600, { what: 'the drain stored every router line' });
      const correlate = await runCli(['correlate', '--run', String(runId)], env);
      assert.equal(correlate.code, 0, correlate.stderr);
      assert.match(correlate.stdout, new RegExp(`^\\s*${runId}  drain e2e\\s+600\\s+600\\s+0\\s+0\\s+100\\.00$`, 'm'));
      const names = (await db.query('SELECT DISTINCT app_name FROM router_requests')).rows;
      assert.deepEqual(names, [{ app_name: 'shop' }], 'the app name comes from the drain message');
    } finally {
      await router.close().catch(() => {});
    }
  });
});
