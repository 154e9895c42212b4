// The router requests' counter and histogram move once per label set (core/router-request-tally.js, the
// sink's BatchHistogram), and show exactly what one increment and one observe per request would show:
// checked against a computation of each series from the requests themselves, and against prom-client's
// own observe, request by request, down to the last bit of the sums.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import client from 'prom-client';
import { LATENCY_BUCKETS } from '../../core/latency-buckets.js';
import { createRouterRequestTally } from '../../core/router-request-tally.js';
import { BatchHistogram } from '../../exporters/prometheus-metrics.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';

/**
 * Requests of three apps (one without a name), every status class, response times on and next to each bucket's
 * bound, above the last, and missing.
 * @param {number} n
 * @returns {import('../../core/types.js').RouterRequest[]}
 */
function requests(n) {
  const apps = ['shop', 'cart', null];
  const statuses = [200, 201, 302, 404, 503, 0, 99];
  const times = [...LATENCY_BUCKETS.flatMap((s) => [s * 1000, s * 1000 - 0.001, s * 1000 + 0.001]), 45_000, 0, null];
  return Array.from({ length: n }, (_, i) => {
    // Runs of a few requests of one label set, as a page has them, then a change.
    const run = Math.floor(i / 3);
    return /** @type {import('../../core/types.js').RouterRequest} */ ({
      kind: 'router_request',
      appName: apps[run % apps.length],
      status: statuses[(run * 5 + (i % 2)) % statuses.length],
      responseTimeMs: times[(i * 7) % times.length] ?? (i % 11 === 0 ? null : (i * 0.137) % 400),
    });
  });
}

/** @param {number | null} status */
const classOf = (status) => (status ? `${Math.floor(status / 100)}xx` : 'none');

/**
 * Each series as computed from the requests: count, per-bucket cumulative counts, +Inf, sum in arrival order.
 * @param {import('../../core/types.js').RouterRequest[]} all
 */
function expectedSeries(all) {
  /** @type {Map<string, { requests: number, buckets: number[], inf: number, sum: number }>} */
  const series = new Map();
  for (const r of all) {
    const key = `${r.appName ?? ''}|${classOf(r.status)}`;
    if (!series.has(key)) series.set(key, { requests: 0, buckets: LATENCY_BUCKETS.map(() => 0), inf: 0, sum: 0 });
    const s = /** @type {NonNullable<ReturnType<typeof series.get>>} */ (series.get(key));
    s.requests += 1;
    if (r.responseTimeMs === null) continue;
    const seconds = r.responseTimeMs / 1000;
    s.inf += 1;
    s.sum += seconds;
    LATENCY_BUCKETS.forEach((bound, b) => {
      if (seconds <= bound) s.buckets[b] += 1;
    });
  }
  return series;
}

/** @param {client.Registry} registry */
async function shownSeries(registry) {
  /** @type {Map<string, { requests: number, buckets: number[], inf: number, sum: number }>} */
  const series = new Map();
  const at = (/** @type {Partial<Record<string, string | number>>} */ labels) => {
    const key = `${labels.app}|${labels.status_class}`;
    if (!series.has(key)) series.set(key, { requests: 0, buckets: LATENCY_BUCKETS.map(() => 0), inf: 0, sum: 0 });
    return /** @type {NonNullable<ReturnType<typeof series.get>>} */ (series.get(key));
  };
  const counter = await registry.getSingleMetric('paasmon_router_requests_total')?.get();
  for (const v of counter?.values ?? []) at(v.labels).requests = v.value;
  const histogram = await registry.getSingleMetric('paasmon_router_response_time_seconds')?.get();
  for (const v of histogram?.values ?? []) {
    const s = at(v.labels);
    const name = /** @type {{ metricName?: string }} */ (v).metricName ?? '';
    if (name.endsWith('_sum')) s.sum = v.value;
    else if (name.endsWith('_bucket') && v.labels.le === '+Inf') s.inf = v.value;
    else if (name.endsWith('_bucket')) s.buckets[LATENCY_BUCKETS.indexOf(Number(v.labels.le))] = v.value;
  }
  return series;
}

describe('router requests in the Prometheus sink, one update per label set', () => {
  it('shows every series as computed from the requests, pages tallied apart and records written', async () => {
    const all = requests(5000);
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    // Three pages through tallies (one request taken back in each, as a row that could not be encoded), the
    // rest written as records (a read-back page): both ways add to the same series.
    const pages = [all.slice(0, 1500), all.slice(1500, 3000), all.slice(3000, 4000)];
    for (const page of pages) {
      const tally = createRouterRequestTally();
      page.forEach((r, i) => {
        tally.add(r);
        if (i === 700) tally.removeLast(r);
      });
      sink.showRouterRequests(tally);
    }
    sink.write(all.slice(4000));
    const takenBack = new Set([700, 1500 + 700, 3000 + 700]);
    const stored = all.filter((_, i) => !takenBack.has(i));
    const expected = expectedSeries(stored);
    const shown = await shownSeries(sink.registry);
    assert.deepEqual([...shown.keys()].sort(), [...expected.keys()].sort());
    for (const [key, want] of expected) {
      const got = shown.get(key);
      assert.deepEqual(got && { ...got, sum: 0 }, { ...want, sum: 0 }, key);
      assert.ok(Math.abs((got?.sum ?? NaN) - want.sum) < 1e-9, `${key}: sum ${got?.sum} != ${want.sum}`);
    }
  });

  it('has the very sums and buckets prom-client shows with one observe per request', async () => {
    const all = requests(3000);
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    for (let from = 0; from < all.length; from += 1000) {
      const tally = createRouterRequestTally();
      for (const r of all.slice(from, from + 1000)) tally.add(r);
      sink.showRouterRequests(tally);
    }
    const registry = new client.Registry();
    const histogram = new client.Histogram({
      name: 'paasmon_router_response_time_seconds',
      help: 'h',
      labelNames: ['app', 'status_class'],
      buckets: [...LATENCY_BUCKETS],
      registers: [registry],
    });
    const counter = new client.Counter({
      name: 'paasmon_router_requests_total',
      help: 'c',
      labelNames: ['app', 'status_class'],
      registers: [registry],
    });
    for (const r of all) {
      const labels = { app: r.appName ?? '', status_class: classOf(r.status) };
      counter.inc(labels);
      if (r.responseTimeMs !== null) histogram.observe(labels, r.responseTimeMs / 1000);
    }
    const shown = await shownSeries(sink.registry);
    const oneByOne = await shownSeries(registry);
    assert.deepEqual(shown, oneByOne);
  });

  it('takes back a request: no series for a label set all taken back, the rest as they were', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    const tally = createRouterRequestTally();
    const request = /** @type {import('../../core/types.js').RouterRequest} */ ({
      kind: 'router_request',
      appName: 'gone',
      status: 500,
      responseTimeMs: 12,
    });
    tally.add(request);
    tally.removeLast(request);
    // One without a response time, taken back: the response time of the one before it stays.
    const kept = { ...request, appName: 'kept' };
    tally.add(kept);
    tally.add({ ...kept, responseTimeMs: null });
    tally.removeLast({ ...kept, responseTimeMs: null });
    sink.showRouterRequests(tally);
    assert.equal(tally.count, 1);
    const text = await sink.registry.metrics();
    assert.doesNotMatch(text, /app="gone"/);
    assert.match(text, /^paasmon_router_requests_total\{app="kept",status_class="5xx"\} 1$/m);
    assert.match(text, /^paasmon_router_response_time_seconds_count\{app="kept",status_class="5xx"\} 1$/m);
    assert.match(text, /^paasmon_router_response_time_seconds_sum\{app="kept",status_class="5xx"\} 0.012$/m);
  });
  it('observes a batch as prom-client observes its values one by one', async () => {
    const options = { name: 'h', help: 'h', labelNames: ['app'], buckets: [0.1, 1], registers: [] };
    const values = [50, 100, 100.5, 999, 1000, 5000, 0.5, 3.5];
    const batch = new BatchHistogram(options);
    batch.observeAll({ app: 'a' }, values, 1000);
    batch.observeAll({ app: 'b' }, [], 1000);
    const single = new client.Histogram(options);
    for (const value of values) single.observe({ app: 'a' }, value / 1000);
    const batchValues = (await batch.get()).values;
    assert.deepEqual(batchValues, (await single.get()).values);
    const of = (/** @type {string} */ name, /** @type {number | string | undefined} */ le) =>
      batchValues.find((v) => v.metricName === name && v.labels.le === le)?.value;
    // Counted by hand: bounds are inclusive (le), the sum is of the seconds in the order given.
    assert.deepEqual([of('h_bucket', 0.1), of('h_bucket', 1), of('h_bucket', '+Inf')], [4, 7, 8]);
    assert.equal(of('h_sum', undefined), 0.05 + 0.1 + 0.1005 + 0.999 + 1 + 5 + 0.0005 + 0.0035);
    assert.equal(of('h_count', undefined), 8);
    assert.ok(!batchValues.some((v) => v.labels.app === 'b'), 'an empty batch makes no series');
  });
});
