// Long-term storage: a real Prometheus scrapes a real `paasmon collect` (Cloud Controller stand-in,
// a growing router log), evaluates prometheus/rules.yml and remote-writes everything to a real
// VictoriaMetrics; the live dashboard's PromQL and the rules then give the same series from both.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { freePort, startTestDatabase } from '../support/database.js';
import { PROMETHEUS_DIR, expandPromql, loadDashboards, queriesOf, ruleExpressions } from '../support/grafana.js';
import { startPrometheus } from '../support/prometheus.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';
import { startVictoriaMetrics } from '../support/victoria-metrics.js';

const RUN_SECONDS = 40;
const STEP_SECONDS = 1;
/**
 * VictoriaMetrics keeps 12 significant decimal digits of a float (its documented precision); the
 * values of the instance gauges and of the recorded series compare within that.
 */
const PRECISION = 1e-11;
/**
 * rate(), increase(), irate() and resets() are MetricsQL's own (VictoriaMetrics docs, "MetricsQL":
 * rate and increase do not extrapolate to the window's edges and start from the last sample before
 * the window). Where the window lies wholly within the data (the dashboard's $__rate_interval) their
 * sum over the compared points agrees with Prometheus's within RATE_TOLERANCE. Not point by point: a
 * counter that steps once a second, close to the scrapes, gives a 4 s window's slope over 3 scrape
 * intervals (Prometheus) and over 4 (MetricsQL) that differ by up to a third at single points, as the
 * collector's ingest and the scrapes happen to be phased, while the sums differ only at the range's
 * edges (a CI run's points differed by 7 % in all, summed as absolute values). Where the window reaches
 * before the first sample (the rules' 1 m and 5 m windows in a 40 s run, where Prometheus
 * extrapolates from the series' start) they can differ several-fold, and only the label sets and
 * timestamps are compared. So too for histogram_quantile() of such rates: it interpolates within a
 * bucket, and one bucket's rate that differs by one observation moves it by up to a bucket's width.
 * The series Prometheus recorded (its own evaluation, remote-written) compare within PRECISION.
 */
const OWN_ARITHMETIC = /\b(rate|increase|irate|resets)\(/;
const RATE_TOLERANCE = 0.05;
/** How long the data runs before the compared range starts: windows up to this are within the data. */
const LEAD_SECONDS = 10;

/**
 * How the values of `expr` compare: 'exact' (within PRECISION), 'rate' (within RATE_TOLERANCE) or 'none'.
 * @param {string} expr expanded
 */
function valueComparison(expr) {
  if (!OWN_ARITHMETIC.test(expr)) return 'exact';
  if (expr.includes('histogram_quantile(')) return 'none';
  const windows = [...expr.matchAll(/\[(\d+)([sm])\]/g)].map(([, n, unit]) => Number(n) * (unit === 'm' ? 60 : 1));
  return Math.max(...windows) <= LEAD_SECONDS ? 'rate' : 'none';
}

const live = queriesOf(loadDashboards()['live-run.json']).filter((q) => q.type === 'prometheus');

/**
 * The remote_write of prometheus/prometheus-remote-write.yml, sent to `url`, in batches of one second.
 * @param {string} url
 */
function exampleRemoteWrite(url) {
  const example = YAML.parse(fs.readFileSync(path.join(PROMETHEUS_DIR, 'prometheus-remote-write.yml'), 'utf8'));
  return example.remote_write.map((/** @type {any} */ entry) => ({
    ...entry,
    url,
    queue_config: { ...entry.queue_config, batch_send_deadline: '1s' },
  }));
}

describe('remote_write to VictoriaMetrics: the same series as Prometheus', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startVictoriaMetrics>> | undefined} */
  let vm;
  /** @type {Awaited<ReturnType<typeof startPrometheus>> | undefined} */
  let prometheus;
  /** @type {Awaited<ReturnType<typeof startCollect>> | undefined} */
  let collector;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-remote-write-'));
  const file = path.join(dir, 'access.log');
  /** @type {Date} */
  let from;
  /** @type {Date} */
  let to;

  before(async () => {
    [db, sim, vm] = await Promise.all([
      startTestDatabase(),
      startCfSimulator({ apps: makeApps(2, 2) }),
      startVictoriaMetrics(),
    ]);
    const port = await freePort();
    prometheus = await startPrometheus({
      targets: [`127.0.0.1:${port}`],
      ruleFiles: [path.join(PROMETHEUS_DIR, 'rules.yml')],
      remoteWrite: exampleRemoteWrite(vm.writeUrl),
    });
    fs.writeFileSync(file, '');
    const env = { POLL_SCHEDULE: '* * * * * *', INGEST_SCHEDULE: '* * * * * *', INGEST_DELAY: '0s' };
    collector = await startCollect(
      collectEnv(db, sim, { ...env, ROUTER_LOG_FILE: file, ROUTER_LOG_FILE_APP: 'app-0', PORT: String(port) }),
    );
    const started = Date.now();
    for (let second = 0; second < RUN_SECONDS; second += 1) {
      const requests = makeRequests(20, Date.now() - 1000, 50, `rw-${second}`);
      fs.appendFileSync(file, requests.map((r) => `${gorouterLine(r)}\n`).join(''));
      await sleep(1000);
    }
    // Compared from when the 1 m rate windows hold a few scrapes to a few seconds ago (sent in batches of 1 s).
    from = new Date(Math.ceil((started + LEAD_SECONDS * 1000) / 1000) * 1000);
    to = new Date(Math.floor((Date.now() - 3000) / 1000) * 1000);
    const v = /** @type {NonNullable<typeof vm>} */ (vm);
    await waitFor(async () => (await v.queryRange('up', to, to, 1)).length > 0, { what: 'the last samples in VM' });
    await sleep(2000);
  });
  after(async () => {
    if (collector && collector.cli.child.exitCode === null) {
      collector.cli.child.kill('SIGTERM');
      await collector.cli.exited;
    }
    await prometheus?.stop();
    await vm?.stop();
    await sim?.close();
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Both answers of a range query, as label set -> (timestamp -> value), finite values only.
   * @param {string} expr
   */
  async function both(expr) {
    const variables = { app: ['app-0', 'app-1'], process_type: ['web'], instance_index: ['0', '1'], run: ['1'] };
    const expanded = expandPromql(expr, { rateInterval: '4s', range: '30s', variables });
    const labelValues = /^label_values\((.*),\s*(\w+)\)$/.exec(expanded);
    const query = labelValues ? `count by (${labelValues[2]}) (${labelValues[1]})` : expanded;
    /** @param {Awaited<ReturnType<NonNullable<typeof vm>['queryRange']>>} result */
    const bySeries = (result) =>
      new Map(
        result
          .map(
            (s) =>
              /** @type {[string, Map<number, number>]} */ ([
                JSON.stringify(Object.entries(s.metric).sort()),
                new Map(s.values.filter(([, v]) => Number.isFinite(Number(v))).map(([t, v]) => [t, Number(v)])),
              ]),
          )
          .filter(([, values]) => /** @type {Map<number, number>} */ (values).size > 0),
      );
    const [p, v] = await Promise.all(
      [prometheus, vm].map(async (api) =>
        bySeries(await /** @type {NonNullable<typeof vm>} */ (api).queryRange(query, from, to, STEP_SECONDS)),
      ),
    );
    return { query, p: /** @type {Map<string, Map<number, number>>} */ (p), v };
  }

  /** @param {string} expr @param {{ exact?: boolean }} [options] exact: values within PRECISION whatever the query */
  async function assertSame(expr, { exact = false } = {}) {
    const { query, p, v } = await both(expr);
    assert.deepEqual([...v.keys()].sort(), [...p.keys()].sort(), `label sets of ${query}`);
    const compare = exact ? 'exact' : valueComparison(query);
    let [difference, total] = [0, 0];
    for (const [labels, pValues] of p) {
      const vValues = /** @type {Map<number, number>} */ (v.get(labels));
      const common = [...pValues.keys()].filter((t) => vValues.has(t));
      assert.ok(common.length >= pValues.size / 2, `${query} ${labels}: ${common.length} of ${pValues.size} points`);
      for (const t of common) {
        const [a, b] = [/** @type {number} */ (pValues.get(t)), /** @type {number} */ (vValues.get(t))];
        if (compare === 'exact')
          assert.ok(
            Math.abs(a - b) <= PRECISION * Math.max(1, Math.abs(a)),
            `${query} ${labels} at ${t}: ${a} vs ${b}`,
          );
        [difference, total] = [difference + (a - b), total + Math.abs(a)];
      }
    }
    if (compare === 'rate')
      assert.ok(
        Math.abs(difference) <= RATE_TOLERANCE * total,
        `${query}: the sums over all points differ by ${difference} of ${total}`,
      );
    return p.size;
  }

  it('scraped, recorded and remote-written: series with data in both', async () => {
    assert.equal(await assertSame('paasmon_instance_up'), 4, 'two apps of two instances');
    assert.ok((await assertSame('paasmon_router_requests_total')) > 0, 'router counters');
  });

  for (const q of live) {
    it(`${q.where}: ${q.text}`, async () => {
      await assertSame(q.text);
    });
  }
  for (const rule of ruleExpressions()) {
    it(`rules.yml ${rule.kind} ${rule.name}`, async () => {
      const inputs = await assertSame(rule.measure);
      // What Prometheus recorded is stored in VictoriaMetrics as it was: the same values. (No load
      // generator runs here: the run series are absent from both.)
      if (rule.kind === 'record') assert.equal((await assertSame(rule.name, { exact: true })) > 0, inputs > 0);
    });
  }
});
