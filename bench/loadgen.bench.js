// paasmon's load generator (recording every request into PostgreSQL) against autocannon, at the
// same connection count on the same local target; then the generator's peak RSS over a
// 1,000,000-request run. Run: npm run bench -- loadgen   (BENCH_CONNECTIONS, BENCH_SECONDS, BENCH_LONG_REQUESTS)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { startCli } from '../test/support/cli.js';
import { exitWithPeakRss } from './support/peak-rss.js';
import { startTestDatabase } from '../test/support/database.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LONG = Number(process.env.BENCH_LONG_REQUESTS ?? 1_000_000);

// The target runs in its own process so it does not share an event loop with either client.
const target = spawn(
  process.execPath,
  [
    '-e',
    `
  const http = require('node:http');
  const server = http.createServer((req, res) => res.end('ok'));
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const [portText] = await once(target.stdout, 'data');
const url = `http://127.0.0.1:${String(portText).trim()}/`;
const db = await startTestDatabase();

try {
  console.log(`target ${url}; ${CONNECTIONS} connections, ${SECONDS} s each`);
  const ac = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  console.log(
    `autocannon:        ${Math.round(ac.requests.average)} req/s (mean of per-second samples), ` +
      `${ac.requests.total} requests, p99 ${ac.latency.p99} ms`,
  );

  const run = startCli(['loadgen', '--url', url, '--duration', `${SECONDS}s`, '--parallel', String(CONNECTIONS)], {
    DATABASE_URL: db.url,
  });
  const rss = await exitWithPeakRss(run);
  const rps = Number(/Requests\/sec: (\S+)/.exec(run.output.stdout)?.[1]);
  const recorded = Number(/(\d+) requests recorded/.exec(run.output.stdout)?.[1]);
  console.log(
    `paasmon loadgen:   ${Math.round(rps)} req/s, ${recorded} requests recorded in PostgreSQL, ` +
      `peak RSS ${rss.toFixed(1)} MB`,
  );
  console.log(`paasmon / autocannon = ${(rps / ac.requests.average).toFixed(2)}`);

  const long = startCli(['loadgen', '--url', url, '--requests', String(LONG), '--parallel', String(CONNECTIONS)], {
    DATABASE_URL: db.url,
  });
  const longRss = await exitWithPeakRss(long);
  const stored = (
    await db.query('SELECT count(*)::int AS n FROM loadgen_requests WHERE run_id = (SELECT max(id) FROM test_runs)')
  ).rows[0].n;
  console.log(
    `paasmon loadgen:   ${LONG} requests, ${stored} recorded, ` +
      `${Number(/Requests\/sec: (\S+)/.exec(long.output.stdout)?.[1]).toFixed(0)} req/s, ` +
      `peak RSS ${longRss.toFixed(1)} MB`,
  );
} finally {
  target.kill();
  await db.stop();
}
