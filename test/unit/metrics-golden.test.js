// Every metric paasmon exposes, rendered from fixed records and compared with a golden file (as
// node_exporter's end-to-end test does): any change of a name, label, help or bucket shows here.
// After an intended change: UPDATE_GOLDEN=1 node --test test/unit/metrics-golden.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { createPrometheusSink } from '../../exporters/prometheus.js';

const GOLDEN = new URL('../fixtures/metrics/collector.prom', import.meta.url);

describe('/metrics golden file', () => {
  it('renders exactly the committed text for a fixed set of records', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    // As a page writer handed the sink's PostgreSQL metrics counts a page stored with cleaned text.
    sink.postgresMetrics.countCleaned?.('router_request', 2);
    const ts = new Date('2026-11-22T10:00:00Z');
    const base = {
      kind: /** @type {const} */ ('instance_sample'),
      ts,
      appGuid: 'g-1',
      appName: 'shop',
      processType: 'web',
    };
    const usage = {
      cpuEntitlementPercent: 57.25,
      memQuotaBytes: 1 << 30,
      diskQuotaBytes: 1 << 30,
      uptimeSeconds: 3725,
    };
    sink.write(
      [
        {
          ...base,
          ...usage,
          instanceIndex: 0,
          state: 'RUNNING',
          cpuPercent: 229,
          memBytes: 268_435_456,
          diskBytes: 1 << 20,
        },
        {
          ...base,
          instanceIndex: 1,
          state: 'CRASHED',
          cpuPercent: null,
          cpuEntitlementPercent: null,
          memBytes: null,
          memQuotaBytes: null,
          diskBytes: null,
          diskQuotaBytes: null,
          uptimeSeconds: null,
        },
      ],
      { complete: true },
    );
    const router = { kind: /** @type {const} */ ('router_request'), appName: 'shop' };
    sink.write(
      /** @type {any} */ ([
        { ...router, status: 200, responseTimeMs: 25.501 },
        { ...router, status: 503, responseTimeMs: 1200 },
        { ...router, status: null, responseTimeMs: null },
      ]),
    );
    const loadgen = { kind: /** @type {const} */ ('loadgen_request'), runId: 7, correlationId: 'x', startedAt: ts };
    sink.write([
      { ...loadgen, durationMs: 30, status: 200, error: null },
      { ...loadgen, durationMs: 10_000, status: 0, error: 'timeout' },
    ]);
    sink.setIngestLag(31.5);
    sink.showSkipped('router-logs', new Map([['unknown_format', 3]]), 0.03);
    sink.showSkipped('router-log-file', new Map(), 0);
    sink.setCorrelationCounts([{ run_id: 7, matched: 1, loadgen_only: 1, router_only: 2 }]);
    sink.self.pollDuration.observe({ source: 'cloud-controller' }, 0.2);
    sink.self.errors.inc({ source: 'cloud-controller', reason: 'timeout' });
    sink.self.warnings.inc({ source: 'router-logs', reason: 'bad_json' });
    sink.self.retries.inc({ source: 'cloud-controller', reason: 'bad_response' });
    sink.self.lastSuccess.set({ source: 'cloud-controller' }, ts.getTime() / 1000);
    sink.self.skipped.inc({ source: 'cloud-controller' });
    sink.self.records.inc({ source: 'cloud-controller' }, 2);
    sink.self.dbPending.set(3);
    sink.self.dbDropped.inc(1);
    sink.observeDrain('accepted', '', 3);
    sink.observeDrain('stored', '', 3);
    sink.observeDrain('dropped', 'not_rtr', 2);
    sink.observeDrain('rejected', 'bad_frame', 1);
    sink.observeDrain('refused', 'buffer_full', 0);
    sink.setDrainBuffered(0);
    const text = await sink.registry.metrics();
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(GOLDEN, text);
    assert.equal(text, fs.readFileSync(GOLDEN, 'utf8'));
  });
});
