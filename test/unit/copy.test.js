import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binaryRows } from '../../exporters/postgres/sink/copy.js';
import { loadgenRowEncoder } from '../../exporters/postgres/sink/loadgen-rows.js';
import { tableOf } from '../../exporters/postgres/rows/tables.js';

describe('table specs', () => {
  it('give every column of every record kind a PostgreSQL type the binary encoder writes', () => {
    for (const kind of ['instance_sample', 'router_request', 'loadgen_request'])
      for (const [column, , type] of tableOf(kind).columns)
        assert.ok(
          ['text', 'bool', 'int4', 'int8', 'float8', 'timestamptz'].includes(type),
          `${kind}.${column}: ${type}`,
        );
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

describe('loadgenRowEncoder against the generic encoder', () => {
  it('writes the same bytes as binaryRows for the same records (nulls, unicode, cleaned text, rounding)', () => {
    const spec = tableOf('loadgen_request');
    const at = Date.parse('2026-11-22T10:00:00.123Z');
    /** @type {Array<[string, number, number, number, string | null]>} */
    const requests = [
      [ID, at, 12.5, 200, null],
      ['0f8fad5b-d9cb-469f-a165-70867728950e', at + 0.4567, 0.1234567891, 0, 'timeout'],
      [
        '7c9e6679-7425-40de-944b-e07fc1f90ae7',
        Date.parse('1999-12-31T23:59:59.999Z') + 0.25,
        30_000.25,
        503,
        'é ü \t 😀',
      ],
      ['16fd2706-8baf-433b-82eb-8c7fada847da', at - 0.0016, 9.9999995, 599, 'nul\0 and lone \ud800'],
      ['886313e1-3b8a-5372-9b90-0c9aee199e5d', at, 0, 0, ''],
    ];
    for (const worker of ['w1', 'wörker 😀', 'w\0\udc00']) {
      const encoder = loadgenRowEncoder({ runId: 2 ** 40 + 3, worker });
      const page = Buffer.alloc(4096);
      let end = 0;
      for (const [id, startedAtMs, durationMs, status, error] of requests)
        end = encoder.write(page, end, id, startedAtMs, durationMs, status, error);
      const records = requests.map(([correlationId, startedAt, durationMs, status, error]) => ({
        kind: 'loadgen_request',
        runId: 2 ** 40 + 3,
        correlationId,
        startedAt,
        durationMs,
        status,
        error,
        worker,
      }));
      const generic = binaryRows(spec, records);
      assert.deepEqual(page.subarray(0, end), generic.data, worker);
      assert.equal(encoder.cleaned, generic.cleaned, worker);
    }
  });
});
