// Every router source `collect` runs (search, file, Log Cache, the syslog drain) stores its rows and then
// moves paasmon_correlation_requests_total by the load-generator requests they matched: each source's
// own requests, counted independently of the counter (the run's requests are known).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { loadConfig } from '../../collector/config/index.js';
import { collectorJobs } from '../../collector/jobs.js';
import { SOURCES } from '../../collector/sources/registry.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { waitFor } from '../support/cli.js';
import { collectEnv } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { startLogCacheStandin } from '../support/log-cache-standin.js';
import { emittedAt, gorouterLine, makeRequests, rawDocument } from '../support/router-docs.js';
import { connectTcp, logMessage, octetCounted, rtrEnvelope } from '../support/syslog-agent-standin.js';
import { toyJobSource } from '../fixtures/toy-source/index.js';

/** @typedef {import('../support/router-docs.js').TruthRequest} TruthRequest */

/**
 * A search server of before points in time: one scroll page holds every document of `hits()`.
 * @param {() => any[]} hits
 */
async function startScrollSearch(hits) {
  const server = http.createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'GET') res.end(JSON.stringify({ version: { number: '7.9.0' } }));
    else if (req.method === 'DELETE') res.end('{}');
    else res.end(JSON.stringify({ _scroll_id: 's', hits: { total: { value: hits().length }, hits: hits() } }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The counter's value for `matched`. @param {ReturnType<typeof createPrometheusSink>} prometheus */
async function matched(prometheus) {
  const metric = prometheus.registry.getSingleMetric('paasmon_correlation_requests_total');
  const values = (await /** @type {any} */ (metric).get()).values;
  return values.find((/** @type {any} */ v) => v.labels.result === 'matched')?.value ?? 0;
}

describe('every router source of collect refreshes the correlation counts', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startLogCacheStandin>>} */
  let logCache;
  /** @type {Awaited<ReturnType<typeof startScrollSearch>>} */
  let search;
  /** @type {ReturnType<typeof collectorJobs>} */
  let jobs;
  /** @type {Parameters<typeof collectorJobs>[1]} */
  let opened;
  /** @type {import('../../collector/config/index.js').Config} */
  let config;
  const prometheus = createPrometheusSink();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-sources-'));
  const file = path.join(dir, 'router.log');
  const [app] = makeApps(1, 1);
  const now = Date.now();
  // Each source its own requests, all sent in one run: the counter moves by each source's share.
  /** @type {Record<string, TruthRequest[]>} */
  const sent = Object.fromEntries(
    ['router-logs', 'router-log-file', 'log-cache', 'syslog-drain', 'toy'].map((name, i) => [
      name,
      makeRequests(6 + i, now - 90_000, 60_000, name),
    ]),
  );
  const abort = new AbortController();
  const log = pino({ level: 'silent' });
  const ctx = () => new Date();
  /** @param {string} name */
  const job = (name) => {
    const found = jobs.find((j) => j.name === name);
    assert.ok(found, `a job ${name}`);
    return found;
  };

  before(async () => {
    [db, sim, logCache] = await Promise.all([
      startTestDatabase(),
      startCfSimulator({ apps: [app] }),
      startLogCacheStandin(),
    ]);
    await migrate(db.pool, log);
    const run = await db.query(
      `INSERT INTO test_runs (label, app_name, started_at) VALUES ('sources', 'shop', $1) RETURNING id`,
      [new Date(now - 600_000)],
    );
    for (const r of Object.values(sent).flat()) {
      await db.query(
        `INSERT INTO loadgen_requests (run_id, correlation_id, started_at, duration_ms, status, worker)
        VALUES ($1, $2, $3, 5, 200, 'test')`,
        [run.rows[0].id, r.id, new Date(Math.floor(r.receivedUs / 1000))],
      );
    }
    search = await startScrollSearch(() =>
      sent['router-logs'].map((r, i) => ({
        _index: 'logs',
        _id: String(i),
        _source: rawDocument(r),
        sort: [Date.parse(emittedAt(r))],
      })),
    );
    fs.writeFileSync(file, sent['router-log-file'].map((r) => `${gorouterLine(r)}\n`).join(''));
    logCache.envelopes.push(
      ...sent['log-cache'].map((r) => ({
        timestamp: BigInt(Date.parse(emittedAt(r))) * 1_000_000n,
        sourceId: app.guid,
        instanceId: String(r.appIndex),
        tags: { source_type: 'RTR', app_name: app.name, app_id: app.guid },
        log: gorouterLine(r),
      })),
    );
    config = loadConfig(
      collectEnv(db, sim, {
        SEARCH_URL: search.url,
        ROUTER_LOG_FILE: file,
        ROUTER_LOG_FILE_APP: 'shop',
        LOG_CACHE_URL: logCache.url,
        LOG_CACHE_LOOKBACK: '5m',
        DRAIN_TCP_PORT: '0',
      }),
    );
    const postgres = { name: 'unused', write() {}, flush: async () => {}, close: async () => {} };
    opened = { log, prometheus, postgres, pool: db.pool, schemaReady: Promise.resolve(true), signal: abort.signal };
    jobs = collectorJobs(config, opened);
  });
  after(async () => {
    abort.abort();
    for (const j of jobs ?? []) await j.close?.();
    await Promise.all([sim?.close(), logCache?.close(), search?.close()]);
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['router-logs', 'router-log-file', 'log-cache']) {
    it(`${name}: a scheduled run stores its rows and counts its matches`, async () => {
      const before = await matched(prometheus);
      const { error } = await /** @type {any} */ (job(name).run).runOnce(ctx());
      assert.equal(error, undefined);
      const stored = await db.query(`SELECT count(*)::int AS n FROM router_requests WHERE correlation_id = ANY ($1)`, [
        sent[name].map((r) => r.id),
      ]);
      assert.equal(stored.rows[0].n, sent[name].length, 'every request stored');
      assert.equal((await matched(prometheus)) - before, sent[name].length);
    });
  }

  it('syslog-drain: pushed rows are stored and counted', async () => {
    const before = await matched(prometheus);
    const drain = /** @type {any} */ (await /** @type {any} */ (job('syslog-drain')).start());
    try {
      const agent = await connectTcp(drain.tcpPort);
      const envelope = (/** @type {TruthRequest} */ r) =>
        rtrEnvelope(gorouterLine(r), { appGuid: app.guid, appName: app.name });
      await agent.write(Buffer.concat(sent['syslog-drain'].map((r) => octetCounted(logMessage(envelope(r))))));
      await agent.end();
      await waitFor(async () => (await matched(prometheus)) - before === sent['syslog-drain'].length, {
        what: `the counter to move by ${sent['syslog-drain'].length}`,
        timeoutMs: 10_000,
      });
    } finally {
      await drain.stop();
    }
  });

  it('a new source is a folder and a line in the map: its rows are stored and counted', async () => {
    const lines = [...sent.toy.map(gorouterLine), '2026-11-28T10:00:00.00+0000 [APP/PROC/WEB/0] OUT hello'];
    /** @type {import('../../collector/sources/registry.js').SourceEntry} */
    const toy = {
      kind: 'paged',
      records: ['router'],
      configured: () => true,
      schedule: () => '* * * * *',
      make: (settings) => toyJobSource(settings, { lines }),
    };
    const withToy = collectorJobs(config, opened, { ...SOURCES, toy });
    try {
      const before = await matched(prometheus);
      const run = /** @type {any} */ (withToy.find((j) => j.name === 'toy')?.run);
      const { result, error } = await run.runOnce(ctx());
      assert.equal(error, undefined);
      assert.deepEqual([result.records, Object.fromEntries(result.skipped)], [sent.toy.length, { not_rtr: 1 }]);
      const ids = sent.toy.map((r) => r.id);
      const stored = await db.query(`SELECT count(*)::int AS n FROM router_requests WHERE correlation_id = ANY ($1)`, [
        ids,
      ]);
      assert.equal(stored.rows[0].n, sent.toy.length, 'every request stored');
      const position = await db.query(`SELECT position FROM ingest_checkpoints WHERE source = 'toy:lines'`);
      assert.equal(position.rows[0]?.position, String(lines.length), 'the checkpoint after the last line');
      assert.equal((await matched(prometheus)) - before, sent.toy.length);
      assert.equal((await run.runOnce(ctx())).result.records, 0, 'nothing read twice');
    } finally {
      for (const j of withToy) await j.close?.();
    }
  });
});
