// `paasmon collect` reading Log Cache (a stand-in built from the read API's shapes): RTR envelopes
// into router_requests, container gauges into instance_samples at their own timestamps, paging
// across windows, checkpoints, and a clear report when the user may not read an app (404).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { startLogCacheStandin } from '../support/log-cache-standin.js';
import { emittedAt, expectedRow, gorouterLine, makeRequests } from '../support/router-docs.js';
import { createCloudControllerClient } from '../../collector/sources/cloud-controller/client.js';

describe('Log Cache source', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startLogCacheStandin>>} */
  let logCache;
  /** @type {ReturnType<typeof import('../support/cli.js').startCli> | undefined} */
  let collector;
  const apps = makeApps(2, 2);
  const [readable, forbidden] = apps;

  before(async () => {
    [db, sim, logCache] = await Promise.all([
      startTestDatabase(),
      startCfSimulator({ apps }),
      startLogCacheStandin({ canRead: (_token, id) => id !== forbidden.guid }),
    ]);
  });
  after(async () => {
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGKILL');
      await collector.exited;
    }
    await Promise.all([sim.close(), logCache.close()]);
    await db.stop();
  });

  /**
   * RTR envelopes of requests, as gorouter emits them (timestamp = end of the request).
   * @param {import('../support/router-docs.js').TruthRequest[]} truth
   */
  const rtrEnvelopes = (truth) =>
    truth.map((r) => ({
      timestamp: BigInt(Date.parse(emittedAt(r))) * 1_000_000n + BigInt(r.receivedUs % 1000) * 1000n,
      sourceId: readable.guid,
      instanceId: String(r.appIndex),
      tags: { source_type: 'RTR', app_name: r.app, app_id: r.appGuid },
      log: gorouterLine(r),
    }));

  it('stores RTR lines and container gauges, pages across a shared timestamp, and reports a 404 clearly', async () => {
    const now = Date.now();
    const truth = makeRequests(1800, now - 100_000, 60_000, 'log-cache');
    const rtr = rtrEnvelopes(truth);
    // Gauges every 5 s for two instances; cpu_entitlement in its own envelope with the same timestamp.
    const gaugeTimes = Array.from({ length: 20 }, (_, i) => BigInt(now - 100_000 + i * 5000) * 1_000_000n + 123_456n);
    const gauges = gaugeTimes.flatMap((ts, i) =>
      [0, 1].flatMap((index) => [
        {
          timestamp: ts + BigInt(index),
          sourceId: readable.guid,
          instanceId: String(index),
          tags: { process_type: 'web', origin: 'rep' },
          gauge: {
            cpu: { unit: 'percentage', value: 10 + i + index / 10 },
            memory: { unit: 'bytes', value: 100_000_000 + i },
            disk: { unit: 'bytes', value: 200_000_000 + i },
            memory_quota: { unit: 'bytes', value: 1_073_741_824 },
            disk_quota: { unit: 'bytes', value: 2_147_483_648 },
          },
        },
        {
          timestamp: ts + BigInt(index),
          sourceId: readable.guid,
          instanceId: String(index),
          tags: { process_type: 'web', origin: 'rep' },
          gauge: {
            cpu_entitlement: { unit: 'percentage', value: 40 + i },
          },
        },
      ]),
    );
    const others = [
      {
        timestamp: BigInt(now - 50_000) * 1_000_000n,
        sourceId: readable.guid,
        instanceId: '0',
        tags: { source_type: 'APP/PROC/WEB' },
        log: 'GET /items 200',
      },
      {
        timestamp: BigInt(now - 49_000) * 1_000_000n,
        sourceId: readable.guid,
        instanceId: '0',
        tags: { source_type: 'RTR' },
        log: 'not a gorouter line',
      },
    ];
    /** @type {import('../support/log-cache-standin.js').StoredEnvelope[]} */
    const all = [...rtr, .../** @type {any[]} */ (gauges), ...others].sort((a, b) =>
      a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0,
    );
    // Forty envelopes share one nanosecond across the first page boundary (1000).
    for (let i = 980; i < 1020; i++) all[i].timestamp = all[980].timestamp;
    logCache.envelopes.push(...all);
    logCache.envelopes.push({ ...rtr[0], sourceId: forbidden.guid });

    const started = await startCollect(
      collectEnv(db, sim, { LOG_CACHE_URL: logCache.url, LOG_CACHE_SCHEDULE: '* * * * * *', LOG_CACHE_LOOKBACK: '3m' }),
    );
    collector = started.cli;
    const c = collector;
    const routerRows = async () =>
      (
        await db.query(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at,
      app_name, app_guid, app_index, status, response_time_ms, gorouter_time_ms, correlation_id, vcap_request_id FROM router_requests ORDER BY vcap_request_id`)
      ).rows;
    await waitFor(async () => (await routerRows()).length === truth.length, {
      what: `router rows from Log Cache\n${c.output.stderr}`,
      timeoutMs: 30_000,
    });
    assert.deepEqual(
      await routerRows(),
      truth.map(expectedRow).sort((a, b) => a.vcap_request_id.localeCompare(b.vcap_request_id)),
    );

    const samples = (
      await db.query(
        `SELECT ts, app_name, process_type, instance_index, state, cpu_percent, cpu_entitlement_percent, mem_bytes, mem_quota_bytes,
      disk_bytes, disk_quota_bytes FROM instance_samples WHERE app_guid = $1 ORDER BY ts, instance_index`,
        [readable.guid],
      )
    ).rows;
    assert.equal(samples.length, 40, 'one sample per instance and gauge timestamp, the entitlement merged in');
    for (const [n, s] of samples.entries()) {
      const i = Math.floor(n / 2);
      const index = n % 2;
      assert.deepEqual(s, {
        ts: new Date(Number((gaugeTimes[i] + BigInt(index)) / 1_000_000n)),
        app_name: readable.name,
        process_type: 'web',
        instance_index: index,
        state: 'RUNNING',
        cpu_percent: 10 + i + index / 10,
        cpu_entitlement_percent: 40 + i,
        mem_bytes: 100_000_000 + i,
        mem_quota_bytes: 1_073_741_824,
        disk_bytes: 200_000_000 + i,
        disk_quota_bytes: 2_147_483_648,
      });
    }

    // Paging: limit 1000, the second page starts at the shared timestamp (read again, stored once).
    const reads = logCache.requests.filter((r) => r.startsWith(`/api/v1/read/${readable.guid}?`));
    assert.ok(reads.every((r) => /[?&]limit=1000(&|$)/.test(r) && /envelope_types=LOG&envelope_types=GAUGE/.test(r)));
    assert.ok(
      reads.some((r) => r.includes(`start_time=${all[980].timestamp}&`)),
      'a page starts at the shared timestamp',
    );

    const health = async () =>
      /** @type {any} */ (await (await fetch(`${started.base}/healthz`)).json()).sources['log-cache'];
    const h = await waitFor(
      async () => {
        const x = await health();
        return x.lastError && x;
      },
      { what: 'the 404 reported' },
    );
    assert.match(
      h.lastError,
      new RegExp(
        `^log-cache: 404 for app ${forbidden.name} \\(${forbidden.guid}\\): the CF user may not read this app's logs`,
      ),
    );
    assert.match(
      c.output.stderr,
      /"reason":"bad_timestamp|"reason":"not_gorouter"/,
      'the bad RTR line is counted as a warning',
    );

    // Live: envelopes that arrive later are read on the next tick from the checkpoint; nothing doubles.
    const later = makeRequests(50, Date.now() - 1000, 500, 'log-cache-later');
    logCache.envelopes.push(...rtrEnvelopes(later));
    await waitFor(async () => (await routerRows()).length === truth.length + later.length, {
      what: 'later envelopes',
      timeoutMs: 20_000,
    });
    const checkpoint = (
      await db.query('SELECT position FROM ingest_checkpoints WHERE source = $1', [`log-cache:${readable.guid}`])
    ).rows[0];
    assert.match(checkpoint.position, /^\d{19}$/, 'the position is a nanosecond timestamp');
    assert.equal(
      (await db.query('SELECT count(*)::int AS n FROM instance_samples WHERE app_guid = $1', [readable.guid])).rows[0]
        .n,
      40,
    );
  });

  it('finds Log Cache in the Cloud Controller root (LOG_CACHE_URL=auto)', async () => {
    const client = createCloudControllerClient(
      {
        api: sim.url,
        username: 'admin',
        password: 'admin-secret',
        clientId: undefined,
        clientSecret: undefined,
        apps: [],
        spaceGuid: undefined,
        skipSslValidation: false,
        concurrency: 1,
        timeoutMs: 5000,
      },
      { log: pino({ level: 'silent' }) },
    );
    try {
      assert.equal((await client.discovery()).logCacheUrl, sim.url);
    } finally {
      client.close();
    }
  });
});
