import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPrometheusSink } from '../../exporters/prometheus.js';

const ts = new Date('2026-11-22T10:00:00Z');
/**
 * @param {number} index @param {Partial<import('../../core/types.js').InstanceSample>} [over]
 * @returns {import('../../core/types.js').InstanceSample}
 */
const sample = (index, over = {}) => ({
  kind: 'instance_sample',
  ts,
  appGuid: 'g-1',
  appName: 'shop',
  processType: 'web',
  instanceIndex: index,
  state: 'RUNNING',
  cpuPercent: 12.5 + index,
  cpuEntitlementPercent: 50,
  memBytes: 1000,
  memQuotaBytes: 2000,
  diskBytes: 3000,
  diskQuotaBytes: 4000,
  uptimeSeconds: 60,
  ...over,
});

/** @param {import('prom-client').Registry} registry @param {string} name */
async function series(registry, name) {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
}

describe('prometheus sink', () => {
  it('exposes each instance with the contract labels and percent of one core', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    sink.write([sample(0), sample(1)], { complete: true });
    assert.deepEqual(await series(sink.registry, 'paasmon_instance_cpu_percent'), [
      { labels: { app: 'shop', app_guid: 'g-1', process_type: 'web', instance_index: '0' }, value: 12.5 },
      { labels: { app: 'shop', app_guid: 'g-1', process_type: 'web', instance_index: '1' }, value: 13.5 },
    ]);
  });

  it('drops the series of an instance that is gone after a complete poll, keeps it after a partial one', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    sink.write([sample(0), sample(1), sample(2)], { complete: true });
    sink.write([sample(0)], { complete: false });
    assert.equal((await series(sink.registry, 'paasmon_instance_up')).length, 3);
    sink.write([sample(0), sample(1)], { complete: true });
    const up = await series(sink.registry, 'paasmon_instance_up');
    assert.deepEqual(
      up.map((s) => s.labels.instance_index),
      ['0', '1'],
    );
    assert.equal((await series(sink.registry, 'paasmon_instance_memory_bytes')).length, 2);
  });

  it('shows no usage series (never 0) for an instance without numbers, and up 0', async () => {
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    sink.write([sample(0)], { complete: true });
    sink.write(
      [
        sample(0, {
          state: 'DOWN',
          cpuPercent: null,
          cpuEntitlementPercent: null,
          memBytes: null,
          diskBytes: null,
          memQuotaBytes: null,
          diskQuotaBytes: null,
        }),
      ],
      { complete: false },
    );
    assert.deepEqual(await series(sink.registry, 'paasmon_instance_cpu_percent'), []);
    assert.deepEqual(
      (await series(sink.registry, 'paasmon_instance_up')).map((s) => s.value),
      [0],
    );
  });
});
