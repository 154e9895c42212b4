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
    // tool, method, url and bytes: NULL for the load generator's own rows (only imports fill them)
    assert.equal(
      line,
      '7\tb8fb3d83-ae6a-43ca-5b91-591aadde8c06\t2026-11-22T10:00:00.000Z\t12.5\t0\ttimeout\tw\\t1\t\\N\t\\N\t\\N\t\\N\n',
    );
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

const ID = 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06';

/**
 * One loadgen row as the encoder writes it, read back by the binary COPY tuple layout (a 16-bit
 * field count, then each field as a 32-bit length, -1 for NULL, and its bytes).
 */
function encodedRow(
  /** @type {ReturnType<typeof loadgenRowEncoder>} */ encoder,
  /** @type {number} */ startedAtMs,
  /** @type {number} */ durationMs,
  /** @type {number} */ status,
  /** @type {string | null} */ error,
) {
  const page = Buffer.alloc(encoder.maxBytes(error) + 8, 0xee);
  const end = encoder.write(page, 4, ID, startedAtMs, durationMs, status, error);
  let o = 4;
  const count = page.readInt16BE(o);
  o += 2;
  /** @type {Array<Buffer | null>} */
  const fields = [];
  for (let i = 0; i < count; i++) {
    const length = page.readInt32BE(o);
    o += 4;
    fields.push(length < 0 ? null : page.subarray(o, o + length));
    o += Math.max(0, length);
  }
  assert.equal(end, o, 'the row ends where its last field does');
  assert.equal(page[end], 0xee, 'nothing written past the end');
  const [runId, id, time, duration, code, err, worker] = /** @type {Buffer[]} */ (fields);
  return {
    count,
    runId: runId.readBigInt64BE(0),
    id: id.toString('latin1'),
    /** Microseconds since 1970 (binary timestamps count from 2000-01-01). */
    micros: time.readBigInt64BE(0) + BigInt(Date.UTC(2000, 0, 1)) * 1000n,
    durationMs: duration.readDoubleBE(0),
    status: code.readInt32BE(0),
    error: err === null ? null : err.toString('utf8'),
    worker: worker.toString('utf8'),
  };
}

/** Microseconds since 1970 of an ISO time with six fraction digits, by string arithmetic. */
const microsOf = (/** @type {string} */ iso) =>
  BigInt(Date.parse(`${iso.slice(0, 19)}Z`)) * 1000n + BigInt(iso.slice(20, 26));

describe('loadgenRowEncoder (binary COPY tuples)', () => {
  const encoder = loadgenRowEncoder({ runId: 7, worker: 'w\t1 ü' });

  it('writes the columns of loadgen_requests in table order, the error as text or NULL', () => {
    const startedAt = Date.parse('2026-11-22T10:00:00.250Z');
    for (const [durationMs, status, error] of /** @type {Array<[number, number, string | null]>} */ ([
      [12.5, 200, null],
      [0, 0, 'timeout'],
      [30_000.25, 503, 'odd\terror\\ é'],
    ])) {
      const row = encodedRow(encoder, startedAt, durationMs, status, error);
      assert.equal(row.count, tableOf('loadgen_request').columns.length);
      assert.deepEqual(
        { ...row, count: undefined, micros: undefined },
        { count: undefined, micros: undefined, runId: 7n, id: ID, durationMs, status, error, worker: 'w\t1 ü' },
      );
      assert.equal(row.micros, microsOf('2026-11-22T10:00:00.250000Z'));
    }
    assert.equal(
      encodedRow(loadgenRowEncoder({ runId: 2 ** 40 + 3, worker: '' }), 0, 1, 200, null).runId,
      2n ** 40n + 3n,
    );
  });

  it('keeps microseconds of the time, before and after 2000, and agrees with Date for whole milliseconds', () => {
    const at = Date.parse('2026-11-22T10:00:00.123Z');
    assert.equal(encodedRow(encoder, at + 0.456, 1, 200, null).micros, microsOf('2026-11-22T10:00:00.123456Z'));
    const before2000 = Date.parse('1999-12-31T23:59:59.999Z');
    assert.equal(encodedRow(encoder, before2000 + 0.25, 1, 200, null).micros, microsOf('1999-12-31T23:59:59.999250Z'));
    for (const ms of [0, 1, 999, 59_999, 86_399_999]) {
      const t = Date.parse('2026-11-22T00:00:00Z') + ms;
      assert.equal(
        encodedRow(encoder, t, 1, 200, null).micros,
        microsOf(new Date(t).toISOString().replace('Z', '000Z')),
      );
    }
  });

  it('rounds the time to the microsecond across a second boundary', () => {
    const at = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(encodedRow(encoder, at - 0.0002, 1, 200, null).micros, microsOf('2026-11-22T10:00:00.000000Z'));
    assert.equal(encodedRow(encoder, at - 0.001, 1, 200, null).micros, microsOf('2026-11-22T09:59:59.999999Z'));
    assert.equal(encodedRow(encoder, at - 0.0016, 1, 200, null).micros, microsOf('2026-11-22T09:59:59.999998Z'));
  });

  it('keeps durations in ms to the nanosecond: a whole number of ns, within half a ns (and float error) of the measured value', () => {
    for (const ms of [0, 4e-7, 6e-7, 0.001, 0.999, 1, 9.9999995, 10.05, 123.456789, 59_999.9999999, 3_600_000]) {
      const stored = encodedRow(encoder, 0, ms, 200, null).durationMs;
      assert.equal(stored, Number(stored.toFixed(6)), `${stored} is not a whole number of ns`);
      assert.ok(Math.abs(stored - ms) <= 5e-7 * (1 + 1e-6), `${ms} stored as ${stored}`);
    }
    assert.equal(encodedRow(encoder, 0, 4e-7, 200, null).durationMs, 0);
    assert.equal(encodedRow(encoder, 0, 6e-7, 200, null).durationMs, 0.000001);
  });

  it('says how many bytes a row can take', () => {
    for (const error of [null, 'timeout', 'a\\b\tc\nd é'.repeat(20)]) {
      const page = Buffer.alloc(1000);
      const end = loadgenRowEncoder({ runId: 123_456_789, worker: 'worker-name' }).write(
        page,
        0,
        ID,
        Date.now(),
        3_599_999.999,
        599,
        error,
      );
      assert.equal(end, loadgenRowEncoder({ runId: 123_456_789, worker: 'worker-name' }).maxBytes(error));
    }
  });
});
