import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binaryRows } from '../../exporters/postgres/sink/copy.js';
import { tableOf } from '../../exporters/postgres/rows/tables.js';
import { routerRequestRecord } from '../support/router-records.js';

/**
 * Binary COPY tuples read back by their layout (a 16-bit field count, then each field as a 32-bit
 * length, -1 for NULL, and its bytes), each field by its column's type.
 * @param {import('../../core/types.js').EncodedRows} encoded
 */
function decode(encoded) {
  const spec = tableOf('router_request');
  const { data } = encoded;
  /** @type {Array<Record<string, unknown>>} */
  const rows = [];
  let o = 0;
  while (o < data.length) {
    const count = data.readInt16BE(o);
    o += 2;
    assert.equal(count, spec.columns.length);
    /** @type {Record<string, unknown>} */
    const row = {};
    for (const [column, , type] of spec.columns) {
      const length = data.readInt32BE(o);
      o += 4;
      const bytes = data.subarray(o, o + Math.max(0, length));
      o += Math.max(0, length);
      if (length < 0) row[column] = null;
      else if (type === 'text') row[column] = bytes.toString('utf8');
      else if (type === 'int4') row[column] = (assert.equal(length, 4), bytes.readInt32BE(0));
      else if (type === 'int8') row[column] = (assert.equal(length, 8), bytes.readBigInt64BE(0));
      else if (type === 'float8') row[column] = (assert.equal(length, 8), bytes.readDoubleBE(0));
      // Microseconds since 1970 (binary timestamps count from 2000-01-01).
      else row[column] = (assert.equal(length, 8), bytes.readBigInt64BE(0) + BigInt(Date.UTC(2000, 0, 1)) * 1000n);
    }
    rows.push(row);
  }
  assert.equal(rows.length, encoded.rows);
  return rows;
}

/** Microseconds since 1970 of an ISO time with six fraction digits, by string arithmetic. */
const microsOf = (/** @type {string} */ iso) =>
  BigInt(Date.parse(`${iso.slice(0, 19)}Z`)) * 1000n + BigInt(iso.slice(20, 26));

/** @param {Record<string, unknown>} fields */
const request = (fields) => routerRequestRecord({ instanceId: null, correlationId: null, traceId: null, ...fields });

describe('binaryRows (router_requests as binary COPY tuples)', () => {
  it('writes every column in table order with its type; null as NULL, an absent app guid and request id as ""', () => {
    const [row] = decode(
      /** @type {any} */ (binaryRows(tableOf('router_request'), [request({ appGuid: null, vcapRequestId: null })])),
    );
    assert.deepEqual(row, {
      received_at: microsOf('2026-11-22T10:00:00.000001Z'),
      app_guid: '',
      app_name: 'shop',
      app_index: 2,
      instance_id: null,
      method: 'GET',
      path: '/',
      status: 200,
      response_time_ms: 25.501,
      gorouter_time_ms: 0.085,
      response_time_resolution_ms: null,
      bytes_received: 0n,
      bytes_sent: 1_099_511_627_770n,
      vcap_request_id: '',
      correlation_id: null,
      router_error: null,
      trace_id: null,
    });
  });

  it('keeps the microseconds of every time, in one second and across seconds, zones and dates', () => {
    const times = [
      ['2026-11-22T10:00:00.999999Z', microsOf('2026-11-22T10:00:00.999999Z')],
      ['2026-11-22T10:00:00.000000Z', microsOf('2026-11-22T10:00:00.000000Z')],
      ['2026-11-22T10:00:01.5Z', microsOf('2026-11-22T10:00:01.500000Z')],
      ['1999-12-31T23:59:59.000001Z', microsOf('1999-12-31T23:59:59.000001Z')],
      ['2026-11-22T11:00:01.25+01:00', microsOf('2026-11-22T10:00:01.250000Z')],
      ['2026-11-22T10:00:01Z', microsOf('2026-11-22T10:00:01.000000Z')],
      [new Date('2026-11-22T10:00:01.123Z'), microsOf('2026-11-22T10:00:01.123000Z')],
    ];
    const rows = decode(
      /** @type {any} */ (
        binaryRows(
          tableOf('router_request'),
          times.map(([receivedAt]) => request({ receivedAt })),
        )
      ),
    );
    assert.deepEqual(
      rows.map((r) => r.received_at),
      times.map(([, micros]) => micros),
    );
  });

  it('writes text as UTF-8, and rows longer than the buffer first allowed', () => {
    const paths = ['/é/ü', '/😀', `/${'x'.repeat(5000)}`, '/tab\there\\'];
    const rows = decode(
      /** @type {any} */ (
        binaryRows(
          tableOf('router_request'),
          paths.map((path) => request({ path })),
        )
      ),
    );
    assert.deepEqual(
      rows.map((r) => r.path),
      paths,
    );
  });

  it('writes integers up to the bounds of their types, negative ones too', () => {
    const values = [
      [-(2 ** 31), -(2 ** 53 - 1)],
      [2 ** 31 - 1, 2 ** 53 - 1],
      [-1, -1],
    ];
    const records = values.map(([appIndex, bytesSent]) => request({ appIndex, bytesSent }));
    const rows = decode(/** @type {any} */ (binaryRows(tableOf('router_request'), records)));
    assert.deepEqual(
      rows.map((r) => [r.app_index, r.bytes_sent]),
      values.map(([appIndex, bytesSent]) => [appIndex, BigInt(bytesSent)]),
    );
  });

  it('writes a lone surrogate as U+FFFD, as any UTF-8 encoder does', () => {
    const [row] = decode(/** @type {any} */ (binaryRows(tableOf('router_request'), [request({ path: '/a\ud800b' })])));
    assert.equal(row.path, '/a\ufffdb');
  });

  it('writes a float that is not finite as NULL', () => {
    const [row] = decode(
      /** @type {any} */ (binaryRows(tableOf('router_request'), [request({ gorouterTimeMs: NaN })])),
    );
    assert.equal(row.gorouter_time_ms, null);
  });

  it('names the column of a value its type cannot hold', () => {
    const spec = tableOf('router_request');
    assert.throws(() => binaryRows(spec, [request({ appIndex: 2 ** 31 })]), /app_index is out of range: 2147483648/);
    assert.throws(() => binaryRows(spec, [request({ status: 1.5 })]), /status is out of range: 1.5/);
    assert.throws(
      () => binaryRows(spec, [request({ receivedAt: 'yesterday' })]),
      /received_at is not a time: yesterday/,
    );
    assert.throws(() => binaryRows(spec, [request({ appIndex: -(2 ** 31) - 1 })]), /app_index is out of range/);
    assert.throws(() => binaryRows(spec, [request({ bytesSent: 2 ** 53 })]), /bytes_sent is out of range/);
    assert.throws(() => binaryRows(spec, [request({ receivedAt: new Date(NaN) })]), /received_at is not a time/);
    // The second row has the first one's whole seconds, then no number.
    assert.throws(
      () =>
        binaryRows(spec, [
          request({ receivedAt: '2026-11-22T10:00:00.000001Z' }),
          request({ receivedAt: '2026-11-22T10:00:00.12a456Z' }),
        ]),
      /received_at is not a time: 2026-11-22T10:00:00.12a456Z/,
    );
  });

  it('leaves out a record a value of which its column cannot hold, the rows around it whole', () => {
    const records = [
      request({ path: '/first' }),
      request({ path: '/bad', status: 2 ** 31 }),
      request({ path: '/last\u00e9', bytesSent: 7 }),
    ];
    /** @type {string[]} */
    const told = [];
    const encoded = binaryRows(tableOf('router_request'), records, 3, undefined, (record, error) =>
      told.push(`${/** @type {any} */ (record).path}: ${error.message}`),
    );
    assert.deepEqual(told, ['/bad: postgres: status is out of range: 2147483648']);
    const rows = decode(encoded);
    assert.deepEqual(
      rows.map((row) => [row.path, row.status, row.bytes_sent]),
      [
        ['/first', 200, 1_099_511_627_770n],
        ['/last\u00e9', 200, 7n],
      ],
    );
    // Without a listener the error is thrown.
    assert.throws(() => binaryRows(tableOf('router_request'), records.slice(0, 2)), /status is out of range/);
  });

  it('encodes instance samples too: a Date to the millisecond as microseconds since 2000, counts as int8', () => {
    const sample = {
      ts: new Date('2026-11-22T10:00:00.123Z'),
      appGuid: 'g',
      appName: 'shop',
      processType: 'web',
      instanceIndex: 1,
      state: 'RUNNING',
      cpuPercent: 12.5,
      cpuEntitlementPercent: null,
      memBytes: 2 ** 40,
      memQuotaBytes: null,
      diskBytes: 0,
      diskQuotaBytes: null,
      uptimeSeconds: 60,
    };
    const { data, rows } = binaryRows(tableOf('instance_sample'), [sample]);
    assert.equal(rows, 1);
    assert.equal(data.readInt16BE(0), 14);
    assert.equal(data.readInt32BE(2), 8);
    assert.equal(
      data.readBigInt64BE(6),
      (BigInt(Date.parse('2026-11-22T10:00:00.123Z')) - BigInt(Date.UTC(2000, 0, 1))) * 1000n,
    );
    // uptime_s, then `repeated` NULL (a reading: no repeat marked).
    assert.equal(data.readInt32BE(data.length - 16), 8);
    assert.equal(data.readBigInt64BE(data.length - 12), 60n);
    assert.equal(data.readInt32BE(data.length - 4), -1);
    const repeat = binaryRows(tableOf('instance_sample'), [{ ...sample, repeated: true }]).data;
    assert.deepEqual([repeat.readInt32BE(repeat.length - 5), repeat.readUInt8(repeat.length - 1)], [1, 1]);
  });
});
