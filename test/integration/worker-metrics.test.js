// `paasmon worker` serves one /metrics for its life: between runs too, an ended run's series with their
// last values until METRICS_RUN_SERIES_TTL has passed, then only the live run's (issue 44 item 2).
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { freePort, startTestDatabase } from '../support/database.js';

/** The runs named by any `run` label on /metrics. @param {string} text */
const runsShown = (text) => new Set([...text.matchAll(/[{,]run="(\d+)"/g)].map((m) => Number(m[1])));

describe('paasmon worker /metrics', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {http.Server} */
  let app;
  let appUrl = '';
  before(async () => {
    db = await startTestDatabase();
    app = http.createServer((req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'));
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    appUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (app.address()).port}/work`;
  });
  after(async () => {
    app.closeAllConnections();
    app.close();
    await db.stop();
  });

  it("keeps an ended run's last values for the TTL, then shows the live run's series only", async () => {
    const env = { DATABASE_URL: db.url };
    const port = await freePort();
    const worker = startCli(['worker'], { ...env, PORT: String(port), METRICS_RUN_SERIES_TTL: '3s' });
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(response.status, 200);
      return response.text();
    };
    /** @param {string[]} meta */
    const newRun = async (meta) => {
      const args = ['run', 'start', '--label', 'w', '--app', 'shop', '--meta', `url=${appUrl}`, ...meta];
      const result = await runCli(args, env);
      assert.equal(result.code, 0, result.stderr);
      return Number(result.stdout.trim());
    };
    try {
      await waitFor(() => worker.output.stderr.includes('waiting for runs'), { what: 'the worker idle' });
      assert.deepEqual(runsShown(await scrape()), new Set(), 'served before any run');

      const first = await newRun(['--meta', 'requests=50', '--meta', 'parallel=2']);
      const ok = `paasmon_loadgen_requests_total{run="${first}",outcome="ok"} 50`;
      // The last values of the run, on /metrics after its load ended (the server used to close then).
      await waitFor(async () => (await scrape()).includes(ok), { what: `${ok} on /metrics` });

      const second = await newRun(['--meta', 'duration=60s', '--meta', 'rate=20']);
      const shown = await waitFor(
        async () => {
          const runs = runsShown(await scrape());
          return runs.has(second) && !runs.has(first) && runs;
        },
        { what: `run ${second} live and run ${first} gone from /metrics`, timeoutMs: 30_000 },
      );
      assert.deepEqual(shown, new Set([second]));
    } finally {
      worker.child.kill('SIGTERM');
      assert.deepEqual(await worker.exited, { code: 0, signal: null }, worker.output.stderr);
    }
  });
});
