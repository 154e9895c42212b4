// Chaos during `paasmon collect`: the Cloud Controller (behind a meddling proxy) answers slowly,
// drops connections, sends a proxy's HTML error page instead of JSON, sends 200 with a truncated
// body, and changes its app list between polls. The collector must keep running, every sample it
// shows must be right, and every failure must be counted by reason. (Longer: npm run bench -- chaos)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SPACE_GUID, makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { startFaultProxy } from '../support/fault-proxy.js';

/** @typedef {'none' | 'slow' | 'drop' | 'html' | 'truncated'} Fault */

const HTML =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>';

/**
 * The instance gauges of a /metrics text, checked against the simulator's apps: every CPU value
 * shown must be the one the Cloud Controller serves for that app and instance (no stale, mixed or
 * half-parsed values). Returns how many series were checked.
 * @param {string} text @param {import('../../sandbox/cf-simulator.js').AppSpec[][]} appLists every list served so far
 */
function checkSamples(text, appLists) {
  let checked = 0;
  for (const m of text.matchAll(/^paasmon_instance_cpu_percent\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const candidates = appLists
      .flat()
      .filter((a) => a.guid === labels.app_guid)
      .map((a) => a.processes[0].instances[Number(labels.instance_index)]?.cpu);
    assert.ok(
      candidates.some((cpu) => cpu !== undefined && Math.abs(cpu * 100 - Number(m[2])) < 1e-9),
      `cpu of ${labels.app} #${labels.instance_index} is ${m[2]}, the Cloud Controller said ${candidates.map((c) => (c ?? NaN) * 100)}`,
    );
    checked += 1;
  }
  return checked;
}

describe('chaos during paasmon collect', { timeout: 180_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startFaultProxy>>} */
  let proxy;
  /** @type {Fault} */
  let fault = 'none';
  const faulted = new Map();

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(3, 2, 'chaos') })]);
    proxy = await startFaultProxy(sim.url, ({ url }) => {
      // Discovery and tokens pass: the faults hit the API calls of every poll.
      if (!url.startsWith('/v3/') || fault === 'none') return 'pass';
      faulted.set(fault, (faulted.get(fault) ?? 0) + 1);
      if (fault === 'slow') return 'hang';
      if (fault === 'drop') return 'drop';
      if (fault === 'html') return { status: 502, body: HTML, contentType: 'text/html' };
      return {
        status: 200,
        body: '{"pagination":{"total_results":3},"resources":[{"guid":"6a1f',
        contentType: 'application/json',
      };
    });
  });
  after(async () => {
    await proxy?.close();
    await sim?.close();
    await db?.stop();
  });

  it('keeps running through slow, dropped, HTML and truncated answers and a changing app list; samples right, failures by reason', async () => {
    const collector = startCli(['collect'], {
      DATABASE_URL: db.url,
      CF_API: proxy.url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: 'admin-secret',
      CF_SPACE_GUID: SPACE_GUID,
      CF_TIMEOUT: '1s',
      POLL_SCHEDULE: '* * * * * *',
      PORT: '0',
    });
    try {
      const port = await waitFor(() => Number(/"port":(\d+),"schedule"/.exec(collector.output.stderr)?.[1]), {
        what: `collect to listen\n${collector.output.stderr}`,
      });
      const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const appLists = [sim.state.apps];
      let scrapes = 0;
      let checkedSeries = 0;
      /** Scrapes for `ms`, checking every sample shown. @param {number} ms */
      const watch = async (ms) => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          checkedSeries += checkSamples(await metrics(), appLists);
          scrapes += 1;
          await new Promise((r) => setTimeout(r, 200));
        }
      };
      const instances = (/** @type {string} */ text) => text.match(/^paasmon_instance_up\{/gm)?.length ?? 0;
      await waitFor(async () => instances(await metrics()) === 6, { what: 'first complete poll' });

      for (const f of /** @type {Fault[]} */ (['slow', 'drop', 'html', 'truncated'])) {
        fault = f;
        await watch(4000);
        fault = 'none';
        assert.equal(collector.child.exitCode, null, `collect still runs after ${f}`);
        await waitFor(async () => instances(await metrics()) === sim.state.apps.length * 2, {
          timeoutMs: 30_000,
          what: `a complete poll after ${f}`,
        });
      }
      // The app list changes between polls: one app goes, two come (one with more instances).
      sim.state.apps = [...makeApps(2, 2, 'chaos'), ...makeApps(2, 4, 'late')];
      appLists.push(sim.state.apps);
      await waitFor(async () => instances(await metrics()) === 2 * 2 + 2 * 4, {
        timeoutMs: 30_000,
        what: 'the new app list in /metrics',
      });
      const text = await metrics();
      assert.doesNotMatch(text, /app="chaos-2"/, 'the app that went is gone from /metrics');
      await watch(1500);

      /** Failed polls and retried requests, by reason. @param {string} metric */
      const byReason = (metric) =>
        Object.fromEntries(
          [...text.matchAll(new RegExp(`^${metric}\\{source="cloud-controller",reason="(\\w+)"\\} (\\d+)$`, 'gm'))].map(
            (m) => [m[1], Number(m[2])],
          ),
        );
      const errors = byReason('paasmon_source_errors_total');
      const retries = byReason('paasmon_source_retries_total');
      for (const reason of ['timeout', 'network', 'http_502', 'bad_response'])
        assert.ok(
          (errors[reason] ?? 0) + (retries[reason] ?? 0) > 0,
          `failures counted as ${reason}: ${JSON.stringify({ errors, retries })}`,
        );
      const health = /** @type {any} */ (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json());
      assert.equal(health.sources['cloud-controller'].status, 'ok');
      assert.ok(checkedSeries > 100, `samples checked (${checkedSeries} in ${scrapes} scrapes)`);
      console.log(
        `chaos collect: ${scrapes} scrapes, ${checkedSeries} samples checked, 0 wrong; faulted answers ` +
          `${JSON.stringify(Object.fromEntries(faulted))}; failed polls ${JSON.stringify(errors)}, ` +
          `retried requests ${JSON.stringify(retries)}`,
      );
    } finally {
      collector.child.kill('SIGTERM');
      await collector.exited;
    }
  });
});
