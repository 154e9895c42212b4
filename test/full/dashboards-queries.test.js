// Every query of the dashboards and rules against paasmon's real output: `paasmon collect` polling
// the Cloud Controller simulator and ingesting router logs from a real OpenSearch (fed, as a log
// shipper would, with the access log of a gorouter stand-in in front of two app instances), two
// `paasmon loadgen --metrics-port` runs through that router, a real Prometheus scraping both and
// evaluating prometheus/rules.yml, and the real PostgreSQL they all wrote to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SPACE_GUID, makeApp, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { freePort, startTestDatabase } from '../support/database.js';
import {
  expandPromql,
  expandSql,
  loadDashboards,
  queriesOf,
  ruleExpressions,
  PROMETHEUS_DIR,
} from '../support/grafana.js';
import { startAppInstances, startGorouterStandin } from '../../sandbox/gorouter-standin.js';
import { startPrometheus } from '../support/prometheus.js';
import { startSearchNode } from '../support/search-node.js';

const APP = 'app-0';
const dashboards = loadDashboards();
const queries = Object.values(dashboards).flatMap(queriesOf);

/** Columns each SQL query must return (a time-series query: time, metric and its value). */
const EXPECTED_COLUMNS = {
  'paasmon-runs panel "Runs" A': [
    'run_id',
    'label',
    'app_name',
    'tool',
    'implementation',
    'instances',
    'parallel',
    'cores_per_instance',
    'started_at',
    'ended_at',
    'requests',
    'error_ratio',
    'throughput_rps',
    'e2e_p50_ms',
    'e2e_p95_ms',
    'e2e_p99_ms',
    'router_p95_ms',
    'cpu_percent_avg',
    'cpu_utilization',
    'throughput_per_cpu_percent',
    'raw_rows_pruned_on',
    'from_ms',
    'to_ms',
  ],
  'paasmon-runs panel "Selected runs" A': [
    'label',
    'requests',
    'errors',
    'error_ratio',
    'duration_s',
    'throughput_rps',
    'e2e_mean_ms',
    'e2e_p50_ms',
    'e2e_p95_ms',
    'e2e_p99_ms',
    'e2e_max_ms',
    'router_p50_ms',
    'router_p95_ms',
    'router_p99_ms',
    'matched_ratio',
    'cpu_percent_avg',
    'cpu_percent_peak',
    'cpu_capacity_percent',
    'cpu_utilization',
    'mem_bytes_avg',
    'throughput_per_cpu_percent',
    'raw_rows_pruned_on',
  ],
  'paasmon-runs panel "Throughput and throughput per CPU %" A': [
    'label',
    'throughput_rps',
    'throughput_per_cpu_percent',
  ],
  'paasmon-runs panel "Load-generator throughput over time" A': ['time', 'metric', 'requests_per_second'],
  'paasmon-runs panel "Throughput vs CPU" A': ['cpu_percent_avg', 'throughput_rps'],
  'paasmon-runs panel "Response time vs throughput" A': ['throughput_rps', 'e2e_p50_ms', 'e2e_p95_ms', 'e2e_p99_ms'],
  'paasmon-runs panel "CPU per instance since run start" A': ['seconds_since_start', 'cpu_percent', 'series'],
  'paasmon-runs panel "Memory per instance since run start" A': ['seconds_since_start', 'mem_bytes', 'series'],
  'paasmon-runs variable run': ['__value', '__text'],
  'paasmon-runs annotation "Runs"': ['time', 'timeEnd', 'text', 'tags'],
  'paasmon-router-detail panel "Router latency heatmap" A': ['time', 'metric', 'requests'],
  'paasmon-router-detail panel "Latency breakdown of correlated requests" A': [
    'time',
    'outside router',
    'gorouter',
    'app',
  ],
  'paasmon-router-detail panel "Slowest requests" A': [
    'received_at',
    'app_name',
    'app_index',
    'instance_id',
    'status',
    'response_time_ms',
    'gorouter_time_ms',
    'correlation_id',
    'vcap_request_id',
    'method',
    'path',
    'router_error',
  ],
  'paasmon-router-detail panel "Per app instance" A': [
    'app_name',
    'app_index',
    'requests',
    'errors_5xx',
    'p50_ms',
    'p95_ms',
    'p99_ms',
    'max_ms',
  ],
  'paasmon-router-detail panel "Requests per second per instance" A': ['time', 'metric', 'requests_per_second'],
  'paasmon-router-detail panel "p95 per instance" A': ['time', 'metric', 'p95_ms'],
  'paasmon-router-detail variable app': ['app_name'],
  'paasmon-router-detail annotation "Runs"': ['time', 'timeEnd', 'text', 'tags'],
  'paasmon-router-detail variable run': ['__value', '__text'],
};

/** Columns that stay NULL here: no router errors, and no imported run (the import test reads `tool`). */
// raw_rows_pruned_on: no run here was pruned (partitions-retention.test.js shows pruned runs).
const NULL_WHEN_HEALTHY = new Set(['router_error', 'tool', 'raw_rows_pruned_on']);

describe("dashboard and rule queries against paasmon's real output", () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
  let search;
  /** @type {Awaited<ReturnType<typeof startPrometheus>>} */
  let prometheus;
  /** @type {Awaited<ReturnType<typeof startGorouterStandin>>} */
  let router;
  /** @type {ReturnType<typeof startCli>} */
  let collector;
  /** @type {Awaited<ReturnType<typeof startAppInstances>>} */
  let apps;
  /** @type {NodeJS.Timeout | undefined} */
  let shipper;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-dash-'));
  const logFile = path.join(logDir, 'access.log');
  /** @type {number[]} */
  const runs = [];
  let start = new Date();

  /** Ships new complete access-log lines into OpenSearch every 300 ms, stamped when shipped (as a log shipper does). */
  function startShipping() {
    let offset = 0;
    let busy = false;
    shipper = setInterval(async () => {
      if (busy || !fs.existsSync(logFile)) return;
      busy = true;
      try {
        const text = fs.readFileSync(logFile, 'utf8').slice(offset);
        const end = text.lastIndexOf('\n') + 1;
        if (end > 0) {
          offset += end;
          const at = new Date();
          const docs = text
            .slice(0, end)
            .split('\n')
            .filter(Boolean)
            .map((message) => ({
              '@timestamp': at.toISOString(),
              '@source': { type: 'RTR' },
              '@cf': { app: APP, app_id: sim.state.apps[0].guid },
              message,
            }));
          await search.bulk(`logs-app-lab-perf-${at.toISOString().slice(0, 10).replace(/-/g, '.')}`, docs);
        }
      } finally {
        busy = false;
      }
    }, 300);
  }

  before(async () => {
    const instance = (/** @type {number} */ cpu) => ({
      state: /** @type {const} */ ('RUNNING'),
      cpu,
      cpuEntitlement: cpu * 2,
      mem: 200 * 2 ** 20,
      disk: 300 * 2 ** 20,
      uptime: 600,
    });
    [db, sim, search] = await Promise.all([
      startTestDatabase(),
      startCfSimulator({ apps: [makeApp(APP, [instance(0.4), instance(0.6), { state: 'CRASHED' }])] }),
      startSearchNode('opensearch'),
    ]);
    // Every 25th request of an instance answers 500, so error ratios and 5xx series have something to show.
    const served = [0, 0];
    apps = await startAppInstances(2, (i, req, res) =>
      setTimeout(() => res.writeHead(++served[i] % 25 === 0 ? 500 : 200).end('ok'), 1 + i * 2),
    );
    router = await startGorouterStandin({
      backends: apps.urls,
      appGuid: sim.state.apps[0].guid,
      host: `${APP}.apps.example.com`,
      logFile,
      extraHeaders: ['X-Correlation-Id'],
    });
    const [collectPort, loadgenPort] = [await freePort(), await freePort()];
    prometheus = await startPrometheus({
      targets: [`127.0.0.1:${collectPort}`, `127.0.0.1:${loadgenPort}`],
      ruleFiles: [path.join(PROMETHEUS_DIR, 'rules.yml')],
    });
    start = new Date();
    collector = startCli(['collect'], {
      DATABASE_URL: db.url,
      CF_API: sim.url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: 'admin-secret',
      CF_SPACE_GUID: SPACE_GUID,
      CF_APPS: APP,
      POLL_SCHEDULE: '* * * * * *',
      PORT: String(collectPort),
      SEARCH_URL: search.url,
      INGEST_SCHEDULE: '* * * * * *',
      INGEST_DELAY: '15s', // room for a slow bulk + refresh on a busy machine: a window passed is never re-read
      INGEST_LOOKBACK: '1m',
      LOG_LEVEL: 'warn',
    });
    const collectMetrics = async () => (await fetch(`http://127.0.0.1:${collectPort}/metrics`)).text();
    // No index yet: the router-log source fails, as it would before the first log arrives.
    await waitFor(
      async () =>
        /^paasmon_source_errors_total\{source="router-logs",reason="[a-z_]+"\} [1-9]/m.test(await collectMetrics()),
      { timeoutMs: 60_000, what: `a router-logs error before any index exists\n${collector.output.stderr}` },
    );
    startShipping();

    // Two runs with different parallelism, through the router, recorded by the load generator.
    for (const parallel of [2, 4]) {
      const started = await runCli(
        [
          'run',
          'start',
          '--label',
          `node ${parallel} parallel`,
          '--app',
          APP,
          '--instances',
          '2',
          '--cores-per-instance',
          '1',
          '--parallel',
          String(parallel),
          '--impl',
          'nodejs',
        ],
        { DATABASE_URL: db.url },
      );
      assert.equal(started.code, 0, started.stderr);
      const run = Number(started.stdout.trim());
      runs.push(run);
      if (parallel === 4) sim.faults.slowStatsMs = 2500; // polls overrun the schedule: skipped polls
      const load = await runCli(
        [
          'loadgen',
          '--url',
          `${router.url}/items`,
          '--duration',
          '8s',
          '--parallel',
          String(parallel),
          '--run',
          String(run),
          '--metrics-port',
          String(loadgenPort),
        ],
        { DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
        { timeoutMs: 60_000 },
      );
      assert.equal(load.code, 0, load.stderr);
      sim.faults.slowStatsMs = 0;
      assert.equal((await runCli(['run', 'stop', String(run)], { DATABASE_URL: db.url })).code, 0);
    }
    // Every router record ingested and correlated; then a few more scrapes and rule evaluations.
    const sent = Number((await db.query('SELECT count(*) FROM loadgen_requests')).rows[0].count);
    const counts = async () =>
      (
        await db.query(`SELECT (SELECT count(*) FROM router_requests)::int AS router,
          (SELECT count(*) FROM correlated_requests)::int AS correlated`)
      ).rows[0];
    await waitFor(async () => (await counts()).correlated === sent, { timeoutMs: 120_000 }).catch(async (err) => {
      throw new Error(`not all ${sent} requests correlated: ${JSON.stringify(await counts())}: ${err.message}`);
    });
    await waitFor(
      async () =>
        /^paasmon_source_polls_skipped_total\{source="cloud-controller"\} [1-9]/m.test(await collectMetrics()),
      { what: 'skipped polls' },
    );
    await waitFor(
      async () => /^paasmon_correlation_requests_total\{result="matched"\} [1-9]/m.test(await collectMetrics()),
      { what: 'correlation counted' },
    );
    await new Promise((r) => setTimeout(r, 5000));
  });

  after(async () => {
    clearInterval(shipper);
    if (collector && collector.child.exitCode === null) {
      collector.child.kill('SIGTERM');
      await collector.exited;
    }
    await router?.close();
    apps?.close();
    await Promise.all([prometheus?.stop(), search?.stop(), sim?.close()]);
    await db?.stop();
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it('Prometheus evaluates every rule of rules.yml without error', async () => {
    const rules = (await prometheus.rules()).flatMap((g) => g.rules);
    assert.equal(rules.length, ruleExpressions().length);
    for (const rule of rules) assert.equal(rule.health, 'ok', `${rule.name}: ${rule.lastError}`);
  });

  describe('PromQL, with the variables Grafana would fill in, returns numbers over the test', () => {
    /** Grafana's $__rate_interval with a 1 s scrape interval and 1 s step: max(1s + 1s, 4 x 1s). */
    const rateInterval = '4s';
    /**
     * Series with at least one finite value over the test. A variable's label_values(selector, label)
     * (which Grafana answers from the label API) becomes count by (label) (selector).
     * @param {string} expr
     */
    async function finiteSeries(expr) {
      const end = new Date();
      const range = `${Math.round((end.getTime() - start.getTime()) / 1000)}s`;
      const variables = { app: [APP], process_type: ['web'], instance_index: ['0', '1', '2'], run: runs.map(String) };
      const expanded = expandPromql(expr, { rateInterval, range, variables });
      const labelValues = /^label_values\((.*),\s*(\w+)\)$/.exec(expanded);
      const query = labelValues ? `count by (${labelValues[2]}) (${labelValues[1]})` : expanded;
      const result = await prometheus.queryRange(query, start, end, 1);
      if (labelValues)
        assert.ok(
          result.every((s) => s.metric[labelValues[2]]),
          `${query}: a series without ${labelValues[2]}`,
        );
      return { query, series: result.filter((s) => s.values.some(([, v]) => Number.isFinite(Number(v)))) };
    }

    for (const q of queries.filter((x) => x.type === 'prometheus')) {
      it(`${q.where}: ${q.text}`, async () => {
        const { query, series } = await finiteSeries(q.text);
        assert.ok(series.length > 0, `no data for ${query}`);
      });
    }
    for (const rule of ruleExpressions()) {
      it(`rules.yml ${rule.kind} ${rule.name}`, async () => {
        const { query, series } = await finiteSeries(rule.measure);
        assert.ok(series.length > 0, `no data for ${query}`);
        if (rule.kind === 'record')
          assert.ok((await finiteSeries(rule.name)).series.length > 0, `${rule.name} was not recorded`);
      });
    }
  });

  describe("SQL, with Grafana's macros and variables expanded, returns the expected columns and rows", () => {
    for (const q of queries.filter((x) => x.type === 'grafana-postgresql-datasource')) {
      it(q.where, async () => {
        const expected = EXPECTED_COLUMNS[/** @type {keyof typeof EXPECTED_COLUMNS} */ (q.where)];
        assert.ok(expected, `no expected columns listed for ${q.where}`);
        const sql = expandSql(q.text, {
          from: new Date(start.getTime() - 60_000),
          to: new Date(),
          interval: '1s',
          variables: { run: { values: runs.map(String), multi: true }, app: { values: [APP], multi: true } },
        });
        assert.doesNotMatch(sql, /\$/, 'everything expanded');
        const result = await db.query(sql);
        assert.deepEqual(
          result.fields.map((f) => f.name),
          expected,
        );
        assert.ok(result.rows.length > 0, `no rows from\n${sql}`);
        for (const column of expected.filter((c) => !NULL_WHEN_HEALTHY.has(c))) {
          assert.ok(
            result.rows.some((row) => row[column] !== null),
            `${column} is NULL in every row of\n${sql}`,
          );
        }
      });
    }
  });
});
