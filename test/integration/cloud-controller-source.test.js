// The Cloud Controller source against the simulator (a real HTTP server), with every fault.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { SourceError } from '../../core/errors.js';
import { createCloudControllerSource } from '../../collector/sources/cloud-controller/index.js';
import {
  OTHER_SPACE_GUID,
  SPACE_GUID,
  makeApp,
  makeApps,
  noFaults,
  startCfSimulator,
} from '../../sandbox/cf-simulator.js';

const FAST_BACKOFF = { retries: 4, baseDelayMs: 20, maxDelayMs: 100 };
const silent = pino({ level: 'silent' });

/** @param {Awaited<ReturnType<typeof startCfSimulator>>} sim @param {Record<string, string>} [env] */
function sourceFor(sim, env = {}) {
  const config = loadConfig({
    CF_API: sim.url,
    CF_USERNAME: 'admin',
    CF_PASSWORD: 'admin-secret',
    CF_APPS: 'app-0,app-1,mixed',
    CF_TIMEOUT: '2s',
    ...env,
  });
  return createCloudControllerSource(config, { log: silent, backoff: FAST_BACKOFF });
}

function context() {
  /** @type {Array<{ reason: string, detail: string }>} */
  const warnings = [];
  return {
    warnings,
    ctx: {
      signal: new AbortController().signal,
      log: silent,
      now: new Date('2026-11-22T10:00:00Z'),
      warn: (/** @type {string} */ reason, /** @type {string} */ detail) => {
        warnings.push({ reason, detail });
      },
    },
  };
}

/**
 * Expected samples of the simulator's apps, computed from the specs (independent of the parser).
 * v2 reports quotas for STARTING instances too; v3 does not.
 * @param {import('../../sandbox/cf-simulator.js').AppSpec[]} apps @param {{ v2?: boolean }} [options]
 */
function expectedFromSpecs(apps, options = {}) {
  return apps.flatMap((a) =>
    a.processes.flatMap((p) =>
      p.instances.map((inst, index) => {
        const running = inst.state === 'RUNNING';
        return {
          app: a.name,
          index,
          state: inst.state,
          cpuPercent: running ? /** @type {number} */ (inst.cpu) * 100 : null,
          memBytes: running ? inst.mem : null,
          memQuotaBytes:
            inst.state === 'DOWN' || (inst.state === 'STARTING' && !options.v2) ? null : p.memoryMb * 1048576,
        };
      }),
    ),
  );
}

/** @param {import('../../core/types.js').InstanceSample[]} samples */
const summary = (samples) =>
  samples.map((s) => ({
    app: s.appName,
    index: s.instanceIndex,
    state: s.state,
    cpuPercent: s.cpuPercent,
    memBytes: s.memBytes,
    memQuotaBytes: s.memQuotaBytes,
  }));

describe('cloud-controller source', () => {
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  const apps = [
    ...makeApps(2, 3),
    makeApp('mixed', [
      { state: 'RUNNING', cpu: 2.5, cpuEntitlement: 1.25, mem: 500_000_000, disk: 1e8, uptime: 9 },
      { state: 'STARTING' },
      { state: 'DOWN' },
    ]),
    makeApp('idle', []),
    makeApp('app-0', [{ state: 'RUNNING', cpu: 0.9, mem: 1 }], { spaceGuid: OTHER_SPACE_GUID }),
  ];
  const watched = apps.slice(0, 3);

  before(async () => {
    sim = await startCfSimulator({ apps, clients: { 'paasmon-client': 'client-secret' } });
  });
  after(async () => {
    await sim.close();
  });
  beforeEach(() => {
    Object.assign(sim.faults, noFaults());
  });

  it('polls every instance of the watched apps with the right values', async () => {
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    const { ctx, warnings } = context();
    const samples = await source.poll(ctx);
    assert.deepEqual(summary(samples), expectedFromSpecs(watched));
    assert.deepEqual(warnings, []);
    assert.ok(samples.length > 0);
    assert.ok(samples.every((s) => s.ts.getTime() === ctx.now.getTime()));
    await source.close?.();
  });

  it('warns when a name is in two spaces and no CF_SPACE_GUID is set, and watches both', async () => {
    const source = sourceFor(sim, { CF_APPS: 'app-0' });
    const { ctx, warnings } = context();
    const samples = await source.poll(ctx);
    assert.equal(new Set(samples.map((s) => s.appGuid)).size, 2);
    assert.deepEqual(
      warnings.map((w) => w.reason),
      ['ambiguous_app_name'],
    );
  });

  it('watches every app of a space when only CF_SPACE_GUID is set, skipping processes with 0 instances', async () => {
    const source = sourceFor(sim, { CF_APPS: '', CF_SPACE_GUID: SPACE_GUID });
    const statsBefore = sim.counters.statsRequests;
    const samples = await source.poll(context().ctx);
    assert.deepEqual(summary(samples), expectedFromSpecs(watched));
    assert.equal(sim.counters.statsRequests - statsBefore, 3, 'no stats call for the app with 0 instances');
  });

  it('resolves apps given by GUID and reports a name that does not exist', async () => {
    const source = sourceFor(sim, { CF_APPS: `${apps[1].guid},nope`, CF_SPACE_GUID: SPACE_GUID });
    const { ctx, warnings } = context();
    const samples = await source.poll(ctx);
    assert.deepEqual([...new Set(samples.map((s) => s.appName))], ['app-1']);
    assert.deepEqual(
      warnings.map((w) => w.detail),
      [`app "nope" not found in space ${SPACE_GUID}`],
    );
  });

  it('follows pagination to the end with pages of one', async () => {
    sim.faults.pageSize = 1;
    const source = sourceFor(sim, { CF_APPS: '', CF_SPACE_GUID: SPACE_GUID });
    assert.deepEqual(summary(await source.poll(context().ctx)), expectedFromSpecs(watched));
  });

  it('uses client credentials when CF_CLIENT_ID is set', async () => {
    const grants = sim.counters.grants.client_credentials ?? 0;
    const source = sourceFor(sim, {
      CF_USERNAME: '',
      CF_PASSWORD: '',
      CF_CLIENT_ID: 'paasmon-client',
      CF_CLIENT_SECRET: 'client-secret',
      CF_SPACE_GUID: SPACE_GUID,
    });
    assert.equal((await source.poll(context().ctx)).length, 9);
    assert.equal(sim.counters.grants.client_credentials, grants + 1);
  });

  it('refreshes an expiring token before it is used, and once after 401 CF-InvalidAuthToken', async () => {
    sim.faults.tokenLifetimeSeconds = 30; // under the 60 s margin: every poll refreshes
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    const refreshes = sim.counters.grants.refresh_token ?? 0;
    await source.poll(context().ctx);
    await source.poll(context().ctx);
    assert.ok((sim.counters.grants.refresh_token ?? 0) > refreshes, 'refresh_token grant used');
    sim.faults.tokenLifetimeSeconds = 1199;
    sim.faults.invalidAuthTokenOnce = 1;
    assert.deepEqual(summary(await source.poll(context().ctx)), expectedFromSpecs(watched));
  });

  it('waits for Retry-After on 429 (text/plain JSON body) and then succeeds', async () => {
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    await source.poll(context().ctx); // token and discovery first
    sim.faults.rateLimited = 1;
    sim.faults.retryAfterSeconds = 1;
    const started = Date.now();
    assert.deepEqual(summary(await source.poll(context().ctx)), expectedFromSpecs(watched));
    assert.ok(Date.now() - started >= 1000, 'waited the Retry-After second');
  });

  it('retries 503 CF-StatsUnavailable, 502 and dropped connections with nothing lost', async () => {
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    await source.poll(context().ctx);
    Object.assign(sim.faults, { statsUnavailable: 2, serverErrors: 1, dropConnections: 2 });
    assert.deepEqual(summary(await source.poll(context().ctx)), expectedFromSpecs(watched));
    assert.equal(
      sim.faults.statsUnavailable + sim.faults.serverErrors + sim.faults.dropConnections,
      0,
      'every fault was hit',
    );
  });

  it('times out slow answers and retries them', async () => {
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID, CF_TIMEOUT: '300ms' });
    await source.poll(context().ctx);
    sim.faults.slowStatsMs = 600;
    const failed = await source.poll(context().ctx).catch((err) => err);
    assert.ok(failed instanceof SourceError);
    assert.equal(failed.reason, 'timeout');
    sim.faults.slowStatsMs = 0;
    assert.equal((await source.poll(context().ctx)).length, 9);
  });

  it('records usage {} as state with null usage and a warning per instance, never as zero', async () => {
    sim.faults.emptyUsage = true;
    const source = sourceFor(sim, { CF_APPS: 'app-0', CF_SPACE_GUID: SPACE_GUID });
    const { ctx, warnings } = context();
    const samples = await source.poll(ctx);
    assert.deepEqual(
      samples.map((s) => [s.state, s.cpuPercent, s.memBytes, s.memQuotaBytes]),
      [
        ['RUNNING', null, null, null],
        ['RUNNING', null, null, null],
        ['RUNNING', null, null, null],
      ],
    );
    assert.deepEqual(
      warnings.map((w) => w.reason),
      ['stats_unavailable', 'stats_unavailable', 'stats_unavailable'],
    );
  });

  it('keeps the samples it got when some stats calls fail for good', async () => {
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    await source.poll(context().ctx);
    sim.faults.statsUnavailableFor = ['mixed'];
    const err = await source.poll(context().ctx).catch((e) => e);
    assert.ok(err instanceof SourceError);
    assert.equal(err.reason, 'stats_unavailable');
    assert.equal(err.records.length, 6, 'the other two processes were kept');
  });

  it('keeps concurrency within CF_CONCURRENCY', async () => {
    const many = await startCfSimulator({ apps: makeApps(40, 1, 'c') });
    many.faults.latencyMs = 20;
    const source = sourceFor(many, { CF_APPS: '', CF_SPACE_GUID: SPACE_GUID, CF_CONCURRENCY: '3' });
    assert.equal((await source.poll(context().ctx)).length, 40);
    assert.equal(many.peakInFlight, 3);
    await source.close?.();
    await many.close();
  });

  it('falls back to v2 stats only when the API has no v3 link', async () => {
    sim.faults.v3Disabled = true;
    const source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    const v2Before = Object.keys(sim.counters.byPath).filter((p) => p.startsWith('/v2/apps/')).length;
    const samples = await source.poll(context().ctx);
    assert.deepEqual(summary(samples), expectedFromSpecs(watched, { v2: true }));
    assert.ok(Object.keys(sim.counters.byPath).filter((p) => p.startsWith('/v2/apps/')).length > v2Before);
    sim.faults.v3Disabled = false;
    const v3source = sourceFor(sim, { CF_SPACE_GUID: SPACE_GUID });
    const before = { ...sim.counters.byPath };
    await v3source.poll(context().ctx);
    assert.ok(
      Object.keys(sim.counters.byPath).every((p) => !p.startsWith('/v2/') || sim.counters.byPath[p] === before[p]),
      'v3 API: no v2 calls',
    );
  });

  it('fails clearly on refused credentials and on an unreachable API', async () => {
    const bad = sourceFor(sim, { CF_PASSWORD: 'wrong' });
    await assert.rejects(bad.poll(context().ctx), {
      name: 'SourceError',
      reason: 'auth',
      message: /UAA refused the password grant \(unauthorized: Bad credentials\)/,
    });
    const config = loadConfig({ CF_API: 'http://127.0.0.1:9', CF_USERNAME: 'a', CF_PASSWORD: 'b', CF_APPS: 'x' });
    const down = createCloudControllerSource(config, {
      log: silent,
      backoff: { retries: 1, baseDelayMs: 10, maxDelayMs: 10 },
    });
    await assert.rejects(down.poll(context().ctx), {
      name: 'SourceError',
      reason: 'network',
      message: /GET \/ failed: ECONNREFUSED/,
    });
  });
});
