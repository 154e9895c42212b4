// Series labelled with a run leave /metrics METRICS_RUN_SERIES_TTL after the run's load ended here,
// while a live run's series stay with their values (issue 44 item 2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPrometheusSink } from '../../exporters/prometheus.js';

const T0 = Date.parse('2026-11-28T10:00:00Z');
const STATUSES = [200, 200, 404, 503, 0];

/**
 * Request `i` of a run: its status from STATUSES, a refused connection for status 0.
 * @param {number} runId @param {number} i @returns {import('../../core/types.js').LoadgenRequest}
 */
const request = (runId, i) => {
  const status = STATUSES[i % STATUSES.length];
  return {
    kind: 'loadgen_request',
    runId,
    correlationId: `${runId}-${i}`,
    startedAt: new Date(T0 + i),
    durationMs: 5 + i,
    status,
    error: status === 0 ? 'refused' : null,
  };
};

/** The runs named by any `run` label on /metrics. @param {string} text */
const runsShown = (text) => new Set([...text.matchAll(/[{,]run="(\d+)"/g)].map((m) => Number(m[1])));

/** @param {string} text @param {string} series the name with its labels, as /metrics prints it */
const valueOf = (text, series) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('run series on /metrics', () => {
  it('removes the series of ended runs once the TTL passed, keeping a live run and its values', async () => {
    let now = T0;
    const sink = createPrometheusSink({ collectDefaultMetrics: false, runSeriesTtlMs: 60_000, now: () => now });
    const ended = [1, 2, 3, 4, 5];
    const live = 6;
    for (const run of [...ended, live]) {
      for (let i = 0; i < 10 * run; i += 1) sink.write([request(run, i)]);
      sink.countRecordWait(run);
    }
    try {
      for (const run of ended) sink.runEnded(run);
      now = T0 + 59_999;
      assert.equal(await sink.expireRunSeries(), 0);
      assert.deepEqual(runsShown(await sink.registry.metrics()), new Set([...ended, live]), 'kept within the TTL');

      now = T0 + 60_000;
      assert.equal(await sink.expireRunSeries(), ended.length);
      const text = await sink.registry.metrics();
      assert.deepEqual(runsShown(text), new Set([live]));
      // The live run's values, counted here from the requests written: 60 requests, 2 in 5 each of 404, 503, refused.
      const n = 10 * live;
      assert.equal(valueOf(text, `paasmon_loadgen_requests_total{run="${live}",outcome="ok"}`), (n * 2) / 5);
      assert.equal(valueOf(text, `paasmon_loadgen_requests_total{run="${live}",outcome="http_4xx"}`), n / 5);
      assert.equal(valueOf(text, `paasmon_loadgen_requests_total{run="${live}",outcome="refused"}`), n / 5);
      assert.equal(
        valueOf(text, `paasmon_loadgen_request_duration_seconds_count{run="${live}",status_class="2xx"}`),
        24,
      );
      const sum = valueOf(text, `paasmon_loadgen_request_duration_seconds_sum{run="${live}",status_class="2xx"}`);
      const expected = [...Array(n).keys()].filter((i) => i % 5 < 2).reduce((s, i) => s + (5 + i) / 1000, 0);
      assert.ok(Math.abs(/** @type {number} */ (sum) - expected) < 1e-9, `${sum} vs ${expected}`);
      assert.equal(valueOf(text, `paasmon_loadgen_record_waits_total{run="${live}"}`), 1);

      // A run that ends later goes on its own TTL; nothing is left of the others.
      sink.runEnded(live);
      now += 59_999;
      assert.equal(await sink.expireRunSeries(), 0);
      now += 1;
      assert.equal(await sink.expireRunSeries(), 1);
      assert.deepEqual(runsShown(await sink.registry.metrics()), new Set());
    } finally {
      await sink.close();
    }
  });

  it('removes them by itself after the TTL, without a scrape or a call', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false, runSeriesTtlMs: 50 });
    try {
      for (let i = 0; i < 5; i += 1) sink.write([request(7, i), request(8, i)]);
      sink.runEnded(7);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const text = await sink.registry.metrics();
      assert.deepEqual(runsShown(text), new Set([8]));
      assert.equal(valueOf(text, 'paasmon_loadgen_requests_total{run="8",outcome="ok"}'), 2);
    } finally {
      await sink.close();
    }
  });
});
