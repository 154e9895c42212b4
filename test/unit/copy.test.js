import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyLine, copyTimestamp, copyValue } from '../../exporters/postgres/copy.js';
import { loadgenRowEncoder, tableOf } from '../../exporters/postgres/tables.js';

describe('copyValue (COPY text format)', () => {
  for (const [value, text] of /** @type {Array<[unknown, string]>} */ ([
    [null, '\\N'],
    [undefined, '\\N'],
    [Number.NaN, '\\N'],
    [Number.POSITIVE_INFINITY, '\\N'],
    [0, '0'],
    [25.501, '25.501'],
    [-3, '-3'],
    ['plain', 'plain'],
    ['', ''],
    ['tab\there', 'tab\\there'],
    ['line\nbreak\r', 'line\\nbreak\\r'],
    ['back\\slash', 'back\\\\slash'],
    ['\\N', '\\\\N'],
    [new Date('2026-11-22T10:00:00.123Z'), '2026-11-22T10:00:00.123Z'],
    [{ a: 'b\tc' }, '{"a":"b\\\\tc"}'],
    [true, 'true'],
  ])) {
    it(`${JSON.stringify(String(value))} -> ${JSON.stringify(text)}`, () => assert.equal(copyValue(value), text));
  }
});

describe('copyLine', () => {
  it('writes the columns of the record kind in table order, tab-separated, with a newline', () => {
    const line = copyLine(tableOf('loadgen_request'), {
      kind: 'loadgen_request',
      runId: 7,
      correlationId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
      startedAt: new Date('2026-11-22T10:00:00Z'),
      durationMs: 12.5,
      status: 0,
      error: 'timeout',
      worker: 'w\t1',
    });
    assert.equal(line, '7\tb8fb3d83-ae6a-43ca-5b91-591aadde8c06\t2026-11-22T10:00:00.000Z\t12.5\t0\ttimeout\tw\\t1\n');
  });

  it('stores an absent request id and app guid as empty text (the unique key must hold)', () => {
    const spec = tableOf('router_request');
    const fields = spec.columns.map(([column]) => column);
    const values = copyLine(spec, { receivedAt: '2026-11-22T10:00:00.000001Z', appGuid: null, vcapRequestId: null })
      .slice(0, -1)
      .split('\t');
    assert.equal(values[fields.indexOf('app_guid')], '');
    assert.equal(values[fields.indexOf('vcap_request_id')], '');
    assert.equal(values[fields.indexOf('status')], '\\N');
  });

  it('refuses a kind that has no table', () =>
    assert.throws(() => tableOf('nope'), /no table for records of kind nope/));
});

describe('copyTimestamp', () => {
  it('keeps microseconds and agrees with Date for whole milliseconds', () => {
    const at = Date.parse('2026-11-22T10:00:00.123Z');
    assert.equal(copyTimestamp(at + 0.456), '2026-11-22T10:00:00.123456Z');
    for (const ms of [0, 1, 999, 59_999, 86_399_999]) {
      const t = Date.parse('2026-11-22T00:00:00Z') + ms;
      assert.equal(copyTimestamp(t), new Date(t).toISOString().replace('Z', '000Z'));
    }
  });

  it('rounds to the microsecond across a second boundary', () => {
    const at = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(copyTimestamp(at - 0.0002), '2026-11-22T10:00:00.000000Z');
    assert.equal(copyTimestamp(at - 0.001), '2026-11-22T09:59:59.999999Z');
  });
});

describe('loadgenRowEncoder', () => {
  it('writes the same row as the generic column mapper', () => {
    const encode = loadgenRowEncoder({ runId: 7, worker: 'w\t1' });
    const startedAt = Date.parse('2026-11-22T10:00:00.250Z');
    for (const [status, error] of /** @type {Array<[number, string | null]>} */ ([
      [200, null],
      [0, 'timeout'],
    ])) {
      const fast = encode('b8fb3d83-ae6a-43ca-5b91-591aadde8c06', startedAt, 12.5, status, error).split('\t');
      const generic = copyLine(tableOf('loadgen_request'), {
        runId: 7,
        correlationId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
        startedAt: new Date(startedAt),
        durationMs: 12.5,
        status,
        error,
        worker: 'w\t1',
      }).split('\t');
      assert.equal(Date.parse(fast[2]), Date.parse(generic[2]));
      fast.splice(2, 1);
      generic.splice(2, 1);
      assert.deepEqual(fast, generic);
    }
  });
});
