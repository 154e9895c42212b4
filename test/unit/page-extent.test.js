// Where a page of binary COPY tuples falls in time (exporters/postgres/schema/partitions.js pageExtent), checked
// against the same times computed here in BigInt microseconds, from tuples written here field by field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binaryRows } from '../../exporters/postgres/sink/copy.js';
import { pageExtent } from '../../exporters/postgres/schema/partitions.js';
import { tableOf } from '../../exporters/postgres/rows/tables.js';
import { routerRequestRecord } from '../support/router-records.js';

const EPOCH_2000_MS = BigInt(Date.UTC(2000, 0, 1));
const DAY_MS = 86_400_000n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** @param {bigint} a @param {bigint} b */
const floorDiv = (a, b) => (a % b !== 0n && a < 0n !== b < 0n ? a / b - 1n : a / b);
/** @param {bigint} a @param {bigint} b */
const ceilDiv = (a, b) => -floorDiv(-a, b);

/**
 * A UTC time with up to six fraction digits as µs since 2000-01-01, the form binary COPY writes.
 * @param {string} text
 */
function microsSince2000(text) {
  const [, whole, fraction = ''] = /^(.*?)(?:\.(\d+))?Z$/.exec(text) ?? [];
  return (BigInt(Date.parse(`${whole}Z`)) - EPOCH_2000_MS) * 1000n + BigInt(fraction.padEnd(6, '0'));
}

/**
 * The extent pageExtent should find: the UTC days, the first time floored and the last ceiled to the ms.
 * @param {bigint[]} micros µs since 2000-01-01, finite
 */
function expectedExtent(micros) {
  const floors = micros.map((us) => floorDiv(us, 1000n) + EPOCH_2000_MS);
  const ceilings = micros.map((us) => ceilDiv(us, 1000n) + EPOCH_2000_MS);
  const min = (/** @type {bigint[]} */ values) => values.reduce((a, b) => (b < a ? b : a));
  const max = (/** @type {bigint[]} */ values) => values.reduce((a, b) => (b > a ? b : a));
  return {
    days: new Set(floors.map((ms) => Number(floorDiv(ms, DAY_MS)))),
    first: Number(min(floors)),
    last: Number(max(ceilings)),
  };
}

/** A table of three columns, the time in the middle, as tuples written here. */
const SPEC = /** @type {import('../../exporters/postgres/rows/tables.js').TableSpec} */ ({
  table: 'router_requests',
  key: [],
  columns: [
    ['id', () => null, 'int8'],
    ['received_at', () => null, 'timestamptz'],
    ['note', () => null, 'text'],
  ],
});

/**
 * Tuples of SPEC: an int8, the time (int64 µs, or NULL), a text of varying length or NULL.
 * @param {Array<bigint | null>} times
 */
function tuples(times) {
  /** @type {Buffer[]} */
  const parts = [];
  times.forEach((us, i) => {
    const head = Buffer.alloc(2 + 12 + 4);
    head.writeInt16BE(3, 0);
    head.writeInt32BE(8, 2);
    head.writeBigInt64BE(BigInt(i), 6);
    head.writeInt32BE(us === null ? -1 : 8, 14);
    parts.push(head);
    if (us !== null) {
      const time = Buffer.alloc(8);
      time.writeBigInt64BE(us, 0);
      parts.push(time);
    }
    const note = i % 3 === 2 ? null : Buffer.from('x'.repeat(i * 7));
    const length = Buffer.alloc(4);
    length.writeInt32BE(note ? note.length : -1, 0);
    parts.push(length, ...(note ? [note] : []));
  });
  const data = Buffer.concat(parts);
  return { records: [], encoded: { data, rows: times.length } };
}

describe('pageExtent of binary COPY tuples', () => {
  const times = [
    '2026-11-25T23:59:59.999999Z',
    '2026-11-26T00:00:00.000001Z',
    '2026-11-26T12:00:00.000500Z',
    '1999-12-31T23:59:59.999999Z',
    '2000-01-01T00:00:00Z',
    '1970-01-01T00:00:00.000001Z',
    '1900-03-01T08:00:00.25Z',
    '2262-04-11T23:47:16.854775Z',
  ];

  it('finds the days, the first and the last time of each page, before 2000 and far after it', () => {
    for (let from = 0; from < times.length; from++) {
      const micros = times.slice(from, from + 3).map(microsSince2000);
      const extent = pageExtent(SPEC, tuples(micros));
      assert.ok(extent);
      assert.deepEqual({ days: extent.days, first: extent.first, last: extent.last }, expectedExtent(micros));
      assert.equal(extent.all, false);
    }
  });

  it("marks a page whose time is NULL or one of PostgreSQL's infinities as reaching every partition", () => {
    const finite = [microsSince2000(times[0]), microsSince2000(times[2])];
    for (const odd of [INT64_MAX, INT64_MIN, null]) {
      const extent = pageExtent(SPEC, tuples([finite[0], odd, finite[1]]));
      assert.ok(extent);
      assert.equal(extent.all, true);
      // The finite times still count.
      assert.deepEqual({ days: extent.days, first: extent.first, last: extent.last }, expectedExtent(finite));
    }
  });

  it("reads router requests' received_at from the rows the COPY encoder writes", () => {
    const records = times.map((receivedAt) => routerRequestRecord({ receivedAt }));
    const spec = tableOf('router_request');
    const extent = pageExtent(spec, { records, encoded: binaryRows(spec, records) });
    assert.ok(extent);
    assert.deepEqual(
      { days: extent.days, first: extent.first, last: extent.last, all: extent.all },
      { ...expectedExtent(times.map(microsSince2000)), all: false },
    );
  });
});
