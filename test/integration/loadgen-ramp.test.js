// `loadgen --rate R --ramp D`, the real binary against a local HTTP server that notes when each
// request arrived, into a real PostgreSQL: the arrivals follow the ramp's definition (computed
// here from N(t), not from the generator's code), no request arrives before its due time, and the
// summary (text and JSON) says what was asked and done.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

/**
 * Requests due by t ms: R t^2 / (2d) during a ramp of d ms, R d / 2 + R (t - d) after (R per second).
 * @param {number} rate @param {number} rampMs @param {number} t
 */
const dueBy = (rate, rampMs, t) =>
  t <= rampMs ? (rate / 1000) * ((t * t) / (2 * rampMs)) : (rate / 1000) * (rampMs / 2 + (t - rampMs));

describe('loadgen --ramp', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Map<string, number>} correlation id -> wall-clock ms of arrival */
  const arrivals = new Map();
  /** @type {http.Server} */
  let server;
  let url = '';
  before(async () => {
    db = await startTestDatabase();
    server = http.createServer((req, res) => {
      arrivals.set(String(req.headers['x-correlation-id']), Date.now());
      res.end('ok');
    });
    server.keepAliveTimeout = 30_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await db.stop();
  });

  it('--rate 400 --ramp 1s --duration 2s: the rate rises from 0 to 400/s over the first second, then holds', async () => {
    const rate = 400;
    const rampMs = 1000;
    const file = path.join(os.tmpdir(), `paasmon-ramp-${process.pid}.json`);
    try {
      const result = await runCli(
        ['loadgen', '--url', url, '--rate', '400', '--ramp', '1s', '--duration', '2s', '--summary-export', file],
        { DATABASE_URL: db.url },
      );
      assert.equal(result.code, 0, result.stderr);
      const run = Number(/^run (\d+) started/m.exec(result.stdout)?.[1]);
      const rows = (
        await db.query(
          'SELECT correlation_id, started_at FROM loadgen_requests WHERE run_id = $1 ORDER BY started_at',
          [run],
        )
      ).rows.map((r) => ({ id: r.correlation_id, dueAt: r.started_at.getTime() }));
      // 600 are due in the 2 s (200 in the ramp, 400 after); on a busy machine the last may be
      // dropped when the generator is behind at the deadline (the summary says so): 40 is 100 ms.
      assert.ok(rows.length >= 560 && rows.length <= 600, `${rows.length} requests`);
      assert.equal(arrivals.size, rows.length, 'every request arrived and was recorded');

      // The due times (started_at, ms) against the definition: request i is due at the t where
      // N(t) = i. Both ends are truncated to the millisecond, so t is within 1 ms of it.
      const start = rows[0].dueAt;
      const off = rows
        .map((r, i) => ({ i, t: r.dueAt - start }))
        .filter(({ i, t }) => !(dueBy(rate, rampMs, Math.max(0, t - 1)) <= i && i <= dueBy(rate, rampMs, t + 1)));
      assert.deepEqual(off.slice(0, 5), [], `${off.length} due times off N(t) = i`);
      assert.ok(rows[199].dueAt - start <= 1000 && rows[200].dueAt - start >= 999, 'request 200 is due at 1 s');

      // Never early: each request reached the server at or after its due time. Both clocks are
      // this machine's wall clock read in whole milliseconds, in two processes: 2 ms of slack
      // (the ramp's first requests would be hundreds of ms early on a flat schedule).
      const early = rows.filter((r) => /** @type {number} */ (arrivals.get(r.id)) < r.dueAt - 2);
      assert.deepEqual(early.slice(0, 3), [], `${early.length} requests arrived before they were due`);

      // Arrivals per window against N(t): about 50 in the first half second, 150 in the second,
      // 400 in the next. A flat 400/s would put 200 in each of the first two.
      const arrived = [...arrivals.values()].map((at) => at - start);
      const windows = [
        [0, 500],
        [500, 1000],
        [1000, 2000],
      ];
      const counts = windows.map(([from, to]) => arrived.filter((t) => t >= from && t < to).length);
      const expected = windows.map(([from, to]) => dueBy(rate, rampMs, to) - dueBy(rate, rampMs, from));
      assert.deepEqual(expected, [50, 150, 400]);
      // Late sends on a busy machine move a few across a boundary (at 0.5 s, 1 per 5 ms of lateness;
      // at 1 s, 1 per 2.5 ms), still far from a flat schedule's 200, 200, 200.
      const tolerance = [30, 40, 40];
      counts.forEach((n, k) =>
        assert.ok(Math.abs(n - expected[k]) <= tolerance[k], `arrivals per window ${counts}, expected ${expected}`),
      );

      // The summary: the ramp, the rate at full rate (as the server saw it), due and sent.
      assert.match(result.stdout, /^Schedule \(open model, --rate 400 --ramp 1s\):$/m);
      const sent = Number(
        /Asked: +400 req\/s after a 1s ramp from 0; sent (\S+) req\/s at full rate/.exec(result.stdout)?.[1],
      );
      // The requests after the ramp over the time from its end to the deadline, or to the last send
      // when that came later (on a busy machine): at most over the second after the ramp, at least
      // over the time to the last arrival, which came after the last send (+2 ms for the two
      // clocks' whole milliseconds). The summary prints one decimal.
      const lastArrival = Math.max(...arrived);
      const fastest = rows.length - 200 + 0.05;
      const slowest = (rows.length - 200) / ((Math.max(2000, lastArrival) + 2 - rampMs) / 1000) - 0.05;
      assert.ok(
        slowest <= sent && sent <= fastest,
        `sent ${sent} req/s at full rate, ${rows.length} sent, last arrival at ${lastArrival} ms`,
      );
      assert.match(result.stdout, new RegExp(`^ {2}Scheduled: +600 requests due, ${rows.length} sent`, 'm'));
      const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.deepEqual(
        [summary.model, summary.rate_per_s, summary.ramp_s, summary.scheduled, summary.sent, summary.requests],
        ['open', 400, 1, 600, rows.length, rows.length],
      );
      assert.equal(summary.sent_per_s.toFixed(1), sent.toFixed(1));
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('--rate without --ramp keeps the flat schedule', async () => {
    arrivals.clear();
    const result = await runCli(['loadgen', '--url', url, '--rate', '400', '--duration', '1s'], {
      DATABASE_URL: db.url,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Schedule \(open model, --rate 400\):$/m);
    assert.match(result.stdout, /Asked: +400 req\/s; sent \S+ req\/s$/m);
    assert.match(result.stdout, /^ {2}Scheduled: +400 requests due, \d+ sent/m);
    const run = Number(/^run (\d+) started/m.exec(result.stdout)?.[1]);
    const dues = (
      await db.query('SELECT started_at FROM loadgen_requests WHERE run_id = $1 ORDER BY started_at', [run])
    ).rows.map((r) => r.started_at.getTime());
    // Due every 2.5 ms from the start: 100 before 250 ms (a 1 s ramp would have had 12).
    const start = dues[0];
    assert.equal(dues.filter((t) => t - start < 250).length, 100);
  });
});
