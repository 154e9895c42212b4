// `paasmon loadgen --warmup D`: load before the run, on the connections the run goes on with, in no run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

/** A server that notes when each request arrived, its id, and every connection opened to it. */
async function startApp() {
  /** @type {Array<{ at: number, id: string }>} */
  const arrivals = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    arrivals.push({ at: Date.now(), id: String(req.headers['x-correlation-id']) });
    setTimeout(() => res.end('ok'), 2);
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', () => {
    connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/work`,
    arrivals,
    connections: () => connections,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('loadgen --warmup', () => {
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

  for (const model of [
    ['--parallel', '3'],
    ['--rate', '200'],
  ]) {
    it(`${model[0]}: sends first, records none of it, and the run goes on on the same connections`, async () => {
      const app = await startApp();
      const file = path.join(os.tmpdir(), `paasmon-warmup-${process.pid}.json`);
      try {
        const args = ['loadgen', '--url', app.url, '--duration', '1s', '--warmup', '1500ms', ...model];
        const result = await runCli([...args, '--connections', '3', '--summary-export', file], env);
        assert.equal(result.code, 0, result.stderr);
        const run = Number(/^run (\d+) started/m.exec(result.stdout)?.[1]);
        const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
        const { rows } = await db.query(
          'SELECT correlation_id, extract(epoch FROM started_at) * 1000 AS ms FROM loadgen_requests WHERE run_id = $1',
          [run],
        );
        const stored = new Set(rows.map((r) => r.correlation_id));
        const warm = app.arrivals.filter(({ id }) => !stored.has(id));
        // Every request the server saw is either the run's or the warm-up's, counted as the summary says.
        assert.equal(stored.size, summary.requests);
        assert.ok(warm.length > 50, `${warm.length} warm-up requests`);
        assert.equal(warm.length, summary.warmup.requests);
        assert.match(
          result.stdout,
          new RegExp(`^Warm-up: ${warm.length} requests in 1\\.\\d+ s .*not recorded in run`, 'm'),
        );
        // The warm-up came first: its last request arrived before the run's first was sent.
        const firstRunSend = Math.min(...rows.map((r) => Number(r.ms)));
        const lastWarm = Math.max(...warm.map(({ at }) => at));
        const firstWarm = Math.min(...warm.map(({ at }) => at));
        assert.ok(lastWarm <= firstRunSend + 5, `warm-up until ${lastWarm}, run from ${firstRunSend}`);
        assert.ok(firstRunSend - firstWarm >= 1400, `${firstRunSend - firstWarm} ms of warm-up`);
        // Kept connections: the run opened none beyond the warm-up's (at most --connections in all).
        assert.ok(app.connections() <= 3, `${app.connections()} connections opened`);
      } finally {
        fs.rmSync(file, { force: true });
        app.close();
      }
    });
  }

  it('rejects a warm-up that is not a duration with one line and exit 2', async () => {
    const result = await runCli(
      ['loadgen', '--url', 'http://127.0.0.1:9/', '--duration', '1s', '--warmup', 'soon'],
      env,
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr.trim(), /^paasmon: .*--warmup/);
    assert.equal(result.stderr.trim().split('\n').length, 1);
  });
});
