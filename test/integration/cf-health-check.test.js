// Issue 25 item 1: Cloud Foundry's health check restarted the collector during the very outage its
// buffer is for. Two collectors run under a stand-in for Diego's checks (test/support/cf-health-checks.js),
// one with manifest.yml's settings, one with the old ones (liveness on /healthz), through a 2-minute
// PostgreSQL stop while the Cloud Controller answers 503 part of the time. The first is never
// restarted and every sample it polled is in PostgreSQL afterwards; the second is restarted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { healthCheckSettings, supervise } from '../support/cf-health-checks.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const MANIFEST = fileURLToPath(new URL('../../manifest.yml', import.meta.url));
const APP = 'paasmon-collector';
const APPS = 2;
const INSTANCES = 3;
const OUTAGE_MS = 120_000;

/** manifest.yml as it was before: liveness on /healthz, no readiness check. */
function oldManifest() {
  const doc = YAML.parse(fs.readFileSync(MANIFEST, 'utf8'));
  const app = doc.applications.find((/** @type {any} */ a) => a.name === APP);
  app['health-check-http-endpoint'] = '/healthz';
  for (const key of Object.keys(app)) {
    if (key.startsWith('readiness-') || key === 'health-check-invocation-timeout') delete app[key];
  }
  return YAML.stringify(doc);
}

/** @param {string} text @param {string} name @param {string} [labels] */
const metricValue = (text, name, labels = '') =>
  Number(new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe('collect under Cloud Foundry health checks through a PostgreSQL outage', { timeout: 420_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {ReturnType<typeof supervise>[]} */
  const supervised = [];

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(APPS, INSTANCES) })]);
    await db.query('CREATE DATABASE old_manifest');
  });
  after(async () => {
    await Promise.all(supervised.map((s) => s.stop()));
    await sim?.close();
    await db?.stop();
  });

  it('keeps the collector of manifest.yml running and every sample it polled; the old check restarts it', async () => {
    const settings = healthCheckSettings(fs.readFileSync(MANIFEST, 'utf8'), APP);
    /** @type {string[]} */
    const logs = [];
    const current = supervise(settings, async () => {
      const { cli, base } = await startCollect(collectEnv(db, sim, { POLL_SCHEDULE: '* * * * * *' }));
      logs.push('');
      cli.child.stderr?.on('data', (d) => {
        logs[logs.length - 1] += d;
      });
      return { child: cli.child, base, exited: cli.exited };
    });
    supervised.push(current);
    const oldUrl = db.url.replace(/\/postgres$/, '/old_manifest');
    const old = supervise(healthCheckSettings(oldManifest(), APP), async () => {
      const { cli, base } = await startCollect(collectEnv({ url: oldUrl }, sim, { POLL_SCHEDULE: '*/5 * * * * *' }));
      return { child: cli.child, base, exited: cli.exited };
    });
    supervised.push(old);

    const storedPolls = async () =>
      (await db.query('SELECT ts, count(*)::int AS n FROM instance_samples GROUP BY ts ORDER BY ts')).rows;
    await waitFor(() => current.checks.some((c) => c.kind === 'startup' && c.ok), { what: 'the collector started' });
    await waitFor(async () => (await storedPolls()).length >= 2, { what: 'two polls stored' });
    await waitFor(() => old.checks.some((c) => c.kind === 'startup' && c.ok), { what: 'the old collector started' });
    const base = /** @type {NonNullable<typeof current.instance>} */ (current.instance).base;
    const pid = current.pids[0];

    await db.stopServer();
    const outageStart = Date.now();
    /** @type {{ at: number, healthz: number, body: any, livez: number }[]} */
    const seen = [];
    try {
      // The Cloud Controller, on a 30 s cycle: 8 s of 503 for every stats call, 6 s for one app's, 16 s fine.
      while (Date.now() - outageStart < OUTAGE_MS) {
        const phase = (Date.now() - outageStart) % 30_000;
        sim.faults.statsUnavailableFor = phase < 8000 ? ['app-0', 'app-1'] : phase < 14_000 ? ['app-1'] : [];
        // A collector the checks restarted answers no more: 0 (and the crash is reported below).
        const healthz = await fetch(`${base}/healthz`).catch(() => undefined);
        const body = await healthz?.json();
        const livez = (await fetch(`${base}/livez`).catch(() => undefined))?.status ?? 0;
        seen.push({ at: Date.now(), healthz: healthz?.status ?? 0, body, livez });
        await new Promise((r) => setTimeout(r, 1000));
      }
    } finally {
      sim.faults.statsUnavailableFor = [];
      await db.startServer();
    }
    const outageEnd = Date.now();
    // Never restarted: one process throughout (the old check restarts it here).
    assert.deepEqual(current.crashes, []);
    await waitFor(
      async () => metricValue(await (await fetch(`${base}/metrics`)).text(), 'paasmon_db_pending_records') === 0,
      {
        timeoutMs: 60_000,
        what: 'the buffer written after the outage',
      },
    );

    // Every liveness check passed, several during the outage.
    assert.deepEqual(current.pids, [pid]);
    const liveness = current.checks.filter((c) => c.kind === 'liveness');
    assert.ok(
      liveness.every((c) => c.ok),
      JSON.stringify(liveness),
    );
    const duringOutage = liveness.filter((c) => c.at > outageStart && c.at < outageEnd);
    assert.ok(duringOutage.length >= 3, `${duringOutage.length} liveness checks during the outage`);
    assert.ok(
      current.checks.filter((c) => c.kind === 'readiness').every((c) => c.ok),
      'routed throughout: no drain to refuse anything',
    );
    // /healthz said failing while it lasted (after its first seconds: the database ping's timeout), /livez ok.
    const settled = seen.filter((s) => s.at - outageStart > 5000);
    assert.ok(settled.length > 60, `${settled.length} reports`);
    for (const s of settled) {
      assert.equal(s.healthz, 503);
      assert.equal(s.body.status, 'failing');
      assert.equal(s.body.database.status, 'unreachable');
    }
    assert.ok(seen.every((s) => s.livez === 200));
    assert.ok(
      seen.some((s) => s.body.sources['cloud-controller'].status === 'failing'),
      'the Cloud Controller 503s showed as failing',
    );

    // Every sample polled is stored: the complete polls' records and those kept of partial ones.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const exit = await current.stop();
    assert.deepEqual(exit, { code: 0, signal: null });
    const complete = metricValue(metrics, 'paasmon_source_records_total', '{source="cloud-controller"}');
    const kept = [...logs[0].matchAll(/"kept":(\d+),.*"msg":"partial poll/g)].reduce((a, m) => a + Number(m[1]), 0);
    const polls = await storedPolls();
    const rows = polls.reduce((a, p) => a + p.n, 0);
    // One more poll may have run between reading /metrics and SIGTERM (finished and written on the way out).
    assert.ok(
      rows >= complete + kept && rows <= complete + kept + APPS * INSTANCES,
      `${rows} rows stored, ${complete} samples of complete polls + ${kept} of partial ones polled`,
    );
    const inOutage = polls.filter((p) => p.ts.getTime() > outageStart && p.ts.getTime() < outageEnd);
    assert.ok(inOutage.length >= 40, `${inOutage.length} polls taken during the outage, stored afterwards`);
    assert.ok(kept > 0, 'some polls were partial (one app answered 503)');
    console.log(
      `health check through a ${OUTAGE_MS / 1000} s outage: ${liveness.length} liveness checks passed ` +
        `(${duringOutage.length} during it), pid ${pid} throughout; ${polls.length} polls (${inOutage.length} ` +
        `during the outage), ${rows} rows = ${complete} + ${kept} partial; old manifest: ` +
        `${old.crashes.length} restarts (${old.crashes[0]?.reason})`,
    );

    // The old manifest's check on /healthz: restarted in the outage, its buffer gone with it.
    assert.ok(old.crashes.length >= 1, 'the old health check restarted its collector');
    assert.ok(old.crashes[0].at > outageStart && old.crashes[0].at < outageEnd);
    // A 503 from the failed ping, or no answer at all (the socket's error in the reason): a restart either way.
    assert.match(old.crashes[0].reason, /^liveness \/healthz: (503|no answer \(.+\))$/);
    assert.ok(old.pids.length >= 2);
  });
});
