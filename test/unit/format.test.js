import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInstanceTable, formatUptime } from '../../collector/commands/format.js';

describe('formatInstanceTable', () => {
  it('prints one row per instance with units in the header', () => {
    const ts = new Date();
    const base = {
      ts,
      kind: /** @type {const} */ ('instance_sample'),
      appGuid: 'g',
      appName: 'shop',
      processType: 'web',
      cpuEntitlementPercent: null,
      diskBytes: null,
      diskQuotaBytes: null,
      memQuotaBytes: 268435456,
    };
    const text = formatInstanceTable([
      {
        ...base,
        instanceIndex: 0,
        state: 'RUNNING',
        cpuPercent: 229.04,
        cpuEntitlementPercent: 57.26,
        memBytes: 134217728,
        diskBytes: 1048576,
        diskQuotaBytes: 1073741824,
        uptimeSeconds: 3725,
      },
      {
        ...base,
        instanceIndex: 1,
        state: 'DOWN',
        cpuPercent: null,
        memBytes: null,
        memQuotaBytes: null,
        uptimeSeconds: 0,
      },
    ]);
    assert.equal(
      text,
      [
        'app   process  #  state    cpu % of core  cpu % of entitlement  memory MiB / quota  disk MiB / quota    uptime',
        'shop  web      0  RUNNING          229.0                  57.3         128.0 / 256        1.0 / 1024  01:02:05',
        'shop  web      1  DOWN                 -                     -               - / -             - / -  00:00:00',
      ].join('\n'),
    );
  });

  it('formats long uptimes in days', () => {
    assert.equal(formatUptime(90061), '1d01h01m');
    assert.equal(formatUptime(null), '-');
  });
});
