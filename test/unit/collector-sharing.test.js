// Collectors side by side: which collector polls an app first, the grace before the others cover
// it, and the settings that turn sharing on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronIntervalMs, preferredInstance } from '../../collector/pipeline/claims.js';
import { loadConfig } from '../../collector/config/index.js';
import { ConfigError } from '../../core/errors.js';
import { guidFrom } from '../../sandbox/cf-simulator.js';

const guids = Array.from({ length: 300 }, (_, i) => guidFrom(`app-${i}`));

describe('collector sharing', () => {
  it('assigns each app to one collector, the same one every time, spread over all of them', () => {
    for (const instances of [1, 2, 3, 5]) {
      const shares = new Array(instances).fill(0);
      for (const guid of guids) {
        const owner = preferredInstance(guid, instances);
        assert.equal(preferredInstance(guid, instances), owner);
        assert.ok(Number.isInteger(owner) && owner >= 0 && owner < instances);
        shares[owner] += 1;
      }
      // A uniform hash gives each about 300 / instances; none is left without apps.
      for (const share of shares) assert.ok(share > (300 / instances) * 0.6, `shares of ${instances}: ${shares}`);
    }
  });

  it('measures the poll interval of the schedule (the grace is a third of it)', () => {
    assert.equal(cronIntervalMs('*/5 * * * * *'), 5000);
    assert.equal(cronIntervalMs('*/2 * * * * *'), 2000);
    assert.equal(cronIntervalMs('0 * * * * *'), 60_000);
  });

  it('COLLECT_INSTANCES turns sharing on; the index defaults to CF_INSTANCE_INDEX, else 0', () => {
    assert.deepEqual(loadConfig({}).sharing, { instances: 1, index: 0 });
    assert.deepEqual(loadConfig({ COLLECT_INSTANCES: '2', CF_INSTANCE_INDEX: '1' }).sharing, {
      instances: 2,
      index: 1,
    });
    assert.deepEqual(
      loadConfig({ COLLECT_INSTANCES: '3', CF_INSTANCE_INDEX: '1', COLLECT_INSTANCE_INDEX: '2' }).sharing,
      { instances: 3, index: 2 },
    );
    assert.throws(() => loadConfig({ COLLECT_INSTANCES: '0' }), ConfigError);
  });
});
