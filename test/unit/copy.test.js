import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyLine, copyValue } from '../../exporters/postgres/copy.js';
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

/** One loadgen row as the encoder writes it, split into its columns. */
function encodedRow(
  /** @type {ReturnType<typeof loadgenRowEncoder>} */ encoder,
  /** @type {number} */ startedAtMs,
  /** @type {number} */ durationMs,
  /** @type {number} */ status,
  /** @type {string | null} */ error,
) {
  const page = Buffer.alloc(encoder.maxBytes(error));
  const end = encoder.write(page, 0, 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06', startedAtMs, durationMs, status, error);
  const line = page.toString('utf8', 0, end);
  assert.ok(line.endsWith('\n'));
  return line.slice(0, -1).split('\t');
}

describe('loadgenRowEncoder', () => {
  const encoder = loadgenRowEncoder({ runId: 7, worker: 'w\t1' });

  it('writes the same row as the generic column mapper', () => {
    const startedAt = Date.parse('2026-11-22T10:00:00.250Z');
    for (const [durationMs, status, error] of /** @type {Array<[number, number, string | null]>} */ ([
      [12.5, 200, null],
      [0, 0, 'timeout'],
      [30_000.25, 503, 'odd\terror\\'],
    ])) {
      const fast = encodedRow(encoder, startedAt, durationMs, status, error);
      const generic = copyLine(tableOf('loadgen_request'), {
        runId: 7,
        correlationId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
        startedAt: new Date(startedAt),
        durationMs,
        status,
        error,
        worker: 'w\t1',
      })
        .slice(0, -1)
        .split('\t');
      // Times and durations are the same instants and numbers, written to the micro- and nanosecond.
      assert.equal(Date.parse(fast[2]), Date.parse(generic[2]));
      assert.equal(Number(fast[3]), Number(generic[3]));
      fast.splice(2, 2);
      generic.splice(2, 2);
      assert.deepEqual(fast, generic);
    }
  });

  it('keeps microseconds of the time and agrees with Date for whole milliseconds', () => {
    const at = Date.parse('2026-11-22T10:00:00.123Z');
    assert.equal(encodedRow(encoder, at + 0.456, 1, 200, null)[2], '2026-11-22T10:00:00.123456Z');
    for (const ms of [0, 1, 999, 59_999, 86_399_999]) {
      const t = Date.parse('2026-11-22T00:00:00Z') + ms;
      assert.equal(encodedRow(encoder, t, 1, 200, null)[2], new Date(t).toISOString().replace('Z', '000Z'));
    }
  });

  it('rounds the time to the microsecond across a second boundary', () => {
    const at = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(encodedRow(encoder, at - 0.0002, 1, 200, null)[2], '2026-11-22T10:00:00.000000Z');
    assert.equal(encodedRow(encoder, at - 0.001, 1, 200, null)[2], '2026-11-22T09:59:59.999999Z');
  });

  it('writes durations in ms to the nanosecond, against toFixed(6)', () => {
    for (const ms of [0, 4e-7, 6e-7, 0.001, 0.999, 1, 9.9999995, 10.05, 123.456789, 59_999.9999999, 3_600_000]) {
      assert.equal(encodedRow(encoder, 0, ms, 200, null)[3], (Math.round(ms * 1e6) / 1e6).toFixed(6), String(ms));
    }
  });

  it('says how many bytes a row can take', () => {
    for (const error of [null, 'timeout', 'a\\b\tc\nd'.repeat(20)]) {
      const page = Buffer.alloc(1000);
      const end = loadgenRowEncoder({ runId: 123_456_789, worker: 'worker-name' }).write(
        page,
        0,
        'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
        Date.now(),
        3_599_999.999,
        599,
        error,
      );
      assert.ok(end <= loadgenRowEncoder({ runId: 123_456_789, worker: 'worker-name' }).maxBytes(error));
    }
  });
});
