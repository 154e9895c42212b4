// `paasmon collect` as a process: schedule, /metrics, /healthz, database outage, SIGTERM, and a
// real Prometheus scraping it.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { SPACE_GUID, makeApps, noFaults, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { startPrometheus } from '../support/prometheus.js';

const APPS = 2;
const INSTANCES = 3;

describe('paasmon collect', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {ReturnType<typeof startCli> | undefined} */
  let collector;

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(APPS, INSTANCES) })]);
  });
  after(async () => {
    await sim.close();
    await db.stop();
  });
  afterEach(async () => {
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGKILL');
      await collector.exited;
    }
    collector = undefined;
    Object.assign(sim.faults, noFaults());
    sim.state.apps = makeApps(APPS, INSTANCES);
    await db.query('TRUNCATE instance_samples').catch(() => {});
  });

  /** Starts collect polling every second; resolves with its HTTP base URL. @param {Record<string, string>} [env] */
  async function start(env = {}) {
    collector = startCli(['collect'], {
      DATABASE_URL: db.url,
      CF_API: sim.url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: 'admin-secret',
      CF_SPACE_GUID: SPACE_GUID,
      POLL_SCHEDULE: '* * * * * *',
      PORT: '0',
      ...env,
    });
    const c = collector;
    const port = await waitFor(() => Number(/"port":(\d+),"schedule"/.exec(c.output.stderr)?.[1]), {
      what: `collect to listen\n${c.output.stderr}`,
    });
    return `http://127.0.0.1:${port}`;
  }

  /** Polls stored so far, as distinct timestamps with their row counts. */
  const storedPolls = async () =>
    (await db.query('SELECT ts, count(*)::int AS n FROM instance_samples GROUP BY ts ORDER BY ts')).rows;

  /** @param {string} text @param {string} name */
  const metricValue = (text, name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

  it('polls on schedule into PostgreSQL, serves /metrics behind a bearer token and /healthz', async () => {
    const base = await start({ METRICS_BEARER_TOKEN: 'scrape-token-xyz' });
    await waitFor(async () => (await storedPolls()).length >= 3, { what: 'three polls stored' });
    const polls = await storedPolls();
    assert.ok(
      polls.every((p) => p.n === APPS * INSTANCES),
      'every poll has every instance',
    );
    const gaps = polls.slice(1).map((p, i) => p.ts.getTime() - polls[i].ts.getTime());
    assert.ok(
      gaps.every((g) => g % 1000 === 0 && g > 0),
      `polls are aligned on the schedule's seconds: ${gaps}`,
    );

    assert.equal((await fetch(`${base}/metrics`)).status, 401);
    assert.equal((await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer wrong' } })).status, 401);
    const metrics = await (
      await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer scrape-token-xyz' } })
    ).text();
    const app0 = sim.state.apps[0];
    assert.match(
      metrics,
      new RegExp(
        `^paasmon_instance_cpu_percent\\{app="app-0",app_guid="${app0.guid}",process_type="web",instance_index="2"\\} 1\\.2$`,
        'm',
      ),
    );
    assert.match(metrics, /^paasmon_source_last_success_timestamp_seconds\{source="cloud-controller"\} \d+/m);
    assert.equal(metricValue(metrics, 'paasmon_db_pending_records'), 0);

    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    const body = /** @type {any} */ (await health.json());
    assert.equal(body.status, 'ok');
    assert.equal(body.database.status, 'ok');
    assert.equal(body.sources['cloud-controller'].status, 'ok');
    assert.ok(
      !collector?.output.stderr.includes('scrape-token-xyz') && !collector?.output.stderr.includes('admin-secret'),
      'no secret in the logs',
    );
  });

  it('on Cloud Foundry without a token: polls, /metrics 401, health endpoints open, one line on how to open it', async () => {
    const base = await start({ VCAP_APPLICATION: JSON.stringify({ application_uris: ['paasmon.apps.example.com'] }) });
    await waitFor(async () => (await storedPolls()).length >= 1, { what: 'a poll stored' });
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(metrics.status, 401);
    assert.match(await metrics.text(), /set METRICS_BEARER_TOKEN, or METRICS_PUBLIC=true/);
    for (const path of ['/livez', '/readyz', '/healthz'])
      assert.equal((await fetch(`${base}${path}`)).status, 200, path);
    const warnings = (collector?.output.stderr ?? '').split('\n').filter((line) => line.includes('METRICS_PUBLIC'));
    assert.equal(warnings.length, 1, collector?.output.stderr);
    assert.equal(JSON.parse(warnings[0]).level, 40);
  });

  it('keeps every sample through a database outage and reports it in /healthz', async () => {
    const base = await start();
    await waitFor(async () => (await storedPolls()).length >= 2, { what: 'two polls stored' });
    await db.stopServer();
    const outageStart = Date.now();
    try {
      const health = await waitFor(
        async () => {
          const response = await fetch(`${base}/healthz`);
          return response.status === 503 ? /** @type {any} */ (await response.json()) : undefined;
        },
        { what: '/healthz 503 while the database is down' },
      );
      assert.equal(health.database.status, 'unreachable');
      await waitFor(
        async () =>
          metricValue(await (await fetch(`${base}/metrics`)).text(), 'paasmon_db_pending_records') >=
          3 * APPS * INSTANCES,
        { what: 'three polls buffered' },
      );
    } finally {
      await db.startServer();
    }
    const outageEnd = Date.now();
    await waitFor(
      async () => metricValue(await (await fetch(`${base}/metrics`)).text(), 'paasmon_db_pending_records') === 0,
      { timeoutMs: 40_000, what: 'buffer written after the outage' },
    );
    const cloudController = /** @type {any} */ (await (await fetch(`${base}/healthz`)).json()).sources[
      'cloud-controller'
    ];
    const taken = cloudController.polls - cloudController.failures;
    collector?.child.kill('SIGTERM');
    assert.deepEqual(await collector?.exited, { code: 0, signal: null });
    const polls = await storedPolls();
    assert.ok(polls.every((p) => p.n === APPS * INSTANCES));
    const duringOutage = polls.filter((p) => p.ts.getTime() > outageStart && p.ts.getTime() < outageEnd);
    assert.ok(duringOutage.length >= 3, `polls taken during the outage were written later (${duringOutage.length})`);
    // No poll lost: each one taken is stored (the one in flight at SIGTERM is finished; one more may
    // have started after /healthz was read), on whole seconds (a machine stalled for a second by the
    // restart can miss a slot of the schedule: that is no poll lost).
    assert.ok(polls.length >= taken && polls.length <= taken + 1, `${polls.length} polls stored, ${taken} taken`);
    const gaps = polls.slice(1).map((p, i) => p.ts.getTime() - polls[i].ts.getTime());
    assert.ok(
      gaps.every((g) => g > 0 && g % 1000 === 0),
      `one poll a second (${gaps.join(',')})`,
    );
    assert.match(collector?.output.stderr ?? '', /postgres: write failed; records kept for the next attempt/);
  });

  it('finishes the poll in flight on SIGTERM, flushes it and exits 0 within 10 s', async () => {
    await start();
    await waitFor(async () => (await storedPolls()).length >= 1, { what: 'a first poll' });
    sim.faults.slowStatsMs = 2500;
    const slowFrom = Date.now();
    const statsBefore = sim.counters.statsRequests;
    await waitFor(() => sim.counters.statsRequests > statsBefore, { what: 'a slow poll in flight' });
    const sent = Date.now();
    collector?.child.kill('SIGTERM');
    const exit = await collector?.exited;
    const took = Date.now() - sent;
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(took < 10_000, `exited in ${took} ms`);
    assert.ok(took > 1000, 'waited for the poll in flight');
    const polls = await storedPolls();
    const last = polls[polls.length - 1];
    assert.ok(last.ts.getTime() >= slowFrom - 1000, 'the in-flight poll was written');
    assert.equal(last.n, APPS * INSTANCES);
    assert.match(collector?.output.stderr ?? '', /collect: stopped/);
  });

  // Issue 12 bug 7: a typo in CF_APPS was silent; collect keeps polling the rest and says so.
  it('names an app of CF_APPS that does not exist in /healthz and keeps polling the others', async () => {
    const base = await start({ CF_SPACE_GUID: '', CF_APPS: 'app-0,nosuchapp' });
    const body = await waitFor(
      async () => {
        const b = /** @type {any} */ (await (await fetch(`${base}/healthz`)).json());
        return b.sources['cloud-controller'].lastSuccessAt ? b : undefined;
      },
      { what: 'a poll' },
    );
    assert.equal(body.sources['cloud-controller'].status, 'ok');
    assert.deepEqual(body.sources['cloud-controller'].warnings, ['app "nosuchapp" not found']);
    await waitFor(async () => (await storedPolls()).length > 0, { what: 'samples of app-0' });
  });

  it('reports 503 on /healthz when no poll succeeds within three intervals', async () => {
    const base = await start({ CF_PASSWORD: 'wrong' });
    const body = await waitFor(
      async () => {
        const response = await fetch(`${base}/healthz`);
        return response.status === 503 ? /** @type {any} */ (await response.json()) : undefined;
      },
      { timeoutMs: 15_000, what: '/healthz 503' },
    );
    assert.equal(body.sources['cloud-controller'].status, 'failing');
    assert.match(body.sources['cloud-controller'].lastError, /UAA refused the password grant/);
    assert.equal(body.database.status, 'ok');
  });

  it('shows an unreachable search server as a failed router-logs source without failing the check or crashing', async () => {
    const base = await start({ SEARCH_URL: 'http://127.0.0.1:9', INGEST_SCHEDULE: '* * * * * *' });
    const body = await waitFor(
      async () => {
        const b = /** @type {any} */ (await (await fetch(`${base}/healthz`)).json());
        return b.sources['router-logs']?.lastError ? b : undefined;
      },
      { timeoutMs: 30_000, what: 'router-logs failure in /healthz' },
    );
    assert.match(body.sources['router-logs'].lastError, /search: GET \/ failed: ECONNREFUSED/);
    assert.equal(body.sources['cloud-controller'].status, 'ok');
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /^paasmon_source_errors_total\{source="router-logs",reason="network"\} [1-9]/m);
    assert.equal(collector?.child.exitCode, null, 'still running');
  });

  it('is scraped by a real Prometheus, which sees every instance and forgets one scaled away', async () => {
    const base = await start({ METRICS_BEARER_TOKEN: 'prom-token' });
    const prometheus = await startPrometheus({ targets: [base.replace('http://', '')], bearerToken: 'prom-token' });
    try {
      const expected = sim.state.apps.flatMap((a) =>
        a.processes[0].instances.map((inst, i) => ({
          app: a.name,
          index: String(i),
          cpu: /** @type {number} */ (inst.cpu) * 100,
        })),
      );
      const result = await waitFor(
        async () => {
          const r = await prometheus.query('paasmon_instance_cpu_percent');
          return r.length === expected.length ? r : undefined;
        },
        { timeoutMs: 30_000, what: 'prometheus to scrape every instance' },
      );
      const seen = result
        .map((r) => ({ app: r.metric.app, index: r.metric.instance_index, cpu: Number(r.value[1]) }))
        .sort((a, b) => a.app.localeCompare(b.app) || a.index.localeCompare(b.index));
      assert.deepEqual(seen, expected);
      assert.ok(
        result.every((r) => r.metric.job === 'paasmon' && r.metric.instance === base.replace('http://', '')),
        'Prometheus owns the instance label',
      );
      assert.deepEqual(
        (await prometheus.targets()).map((t) => t.health),
        ['up'],
      );

      sim.state.apps[1].processes[0].instances.splice(1); // app-1 scaled to one instance
      await waitFor(async () => (await prometheus.query('paasmon_instance_up{app="app-1"}')).length === 1, {
        timeoutMs: 30_000,
        what: 'scaled-down instances to disappear',
      });
    } finally {
      await prometheus.stop();
    }
  });
});
