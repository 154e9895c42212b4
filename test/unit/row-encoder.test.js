import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  genericRowEncoder,
  hasWrittenOutEncoder,
  rowEncoder,
  tupleWriter,
} from '../../exporters/postgres/rows/copy-binary.js';
import { binaryRows } from '../../exporters/postgres/sink/copy.js';
import { tableOf } from '../../exporters/postgres/rows/tables.js';
import { fieldNamesFor, lineFieldsFor, mapDocument } from '../../collector/sources/router-logs/documents.js';
import { logsearchDocument, makeRequests, rawDocument } from '../support/router-docs.js';
import { routerRequestRecord } from '../support/router-records.js';

const ROUTER = tableOf('router_request');

/**
 * The records encoded with an encoder into one tuple writer, unusable ones told apart as binaryRows does.
 * @param {(tuples: any, record: unknown) => void} encodeRow @param {unknown[]} records
 */
function encodeWith(encodeRow, records) {
  const tuples = tupleWriter(records.length);
  /** @type {string[]} */
  const unusable = [];
  for (const record of records) {
    tuples.row(ROUTER.columns.length);
    try {
      encodeRow(tuples, record);
    } catch (err) {
      tuples.dropRow();
      unusable.push(/** @type {Error} */ (err).message);
    }
  }
  return { ...tuples.done(), unusable };
}

/** The bench's documents (half logsearch, half raw lines), mapped as `paasmon ingest` maps them. */
function benchRecords(count = 2000) {
  const fields = fieldNamesFor('auto', {});
  const mapping = { fields, format: /** @type {const} */ ('auto'), lineFields: lineFieldsFor('auto', fields) };
  return makeRequests(count, Date.parse('2026-11-21T00:00:00Z'), 3600_000, 'bench').map((r, i) => {
    const result = mapDocument(i % 2 ? rawDocument(r) : logsearchDocument(r), {
      ...mapping,
      correlationField: 'x_correlation_id',
    });
    assert.ok(result.ok);
    return result.record;
  });
}

const request = routerRequestRecord;

/** Records of every edge the encoders must agree on, the unusable ones included. */
const EDGES = [
  request({}),
  // Absent values of every column: NULL, the app guid and request id as ''.
  Object.fromEntries(Object.entries(request({})).map(([key, value]) => [key, key === 'kind' ? value : undefined])),
  request({ appGuid: null, vcapRequestId: null, appName: null, instanceId: null, path: null, method: null }),
  request({ responseTimeMs: Number.NaN, gorouterTimeMs: Infinity, appIndex: -Infinity, bytesSent: null }),
  // Escaped and not plain ASCII text, text to clean (0x00, a lone surrogate), U+FFFD already there.
  request({ path: '/a "quoted" \\ path\twith tab', appName: 'café 😀', routerError: 'x\u0000y' }),
  request({ instanceId: '\ud800lone', correlationId: 'already \ufffd', method: 'ÄÖ' }),
  request({ path: `/${'é'.repeat(3000)}` }),
  // Numbers and booleans in text columns, numeric strings in number columns.
  request({ appName: 42, instanceId: true, status: '404', bytesReceived: '17', responseTimeMs: '1.5' }),
  // Odd times: other zones, few or no fraction digits, before 2000, a Date, Unix ms, a leap day.
  request({ receivedAt: '2026-11-22T11:00:01.25+01:00' }),
  request({ receivedAt: '2026-11-22T10:00:01Z' }),
  request({ receivedAt: '2026-11-22T10:00:01.5Z' }),
  request({ receivedAt: '1999-12-31T23:59:59.999999Z' }),
  request({ receivedAt: '2024-02-29T23:59:59.000001Z' }),
  request({ receivedAt: '2026-11-22T05:00:00.000001-05:00' }),
  request({ receivedAt: new Date('2026-11-22T10:00:01.123Z') }),
  request({ receivedAt: 1_795_219_200_001.5 }),
  request({ receivedAt: '2026-11-22T10:00:00.000002Z' }),
  // Unusable: left out whole, the same message either way.
  request({ receivedAt: 'not a time' }),
  request({ receivedAt: new Date(Number.NaN) }),
  request({ status: 2 ** 31 }),
  request({ appIndex: 1.5 }),
  request({ bytesSent: 2 ** 53 }),
  request({ bytesReceived: 'many' }),
  request({}),
];

describe('rowEncoder (router_requests written out, every other table by the generic loop)', () => {
  it('takes the written-out encoder for router_requests as tables.js declares it, the generic one for others', () => {
    assert.equal(hasWrittenOutEncoder(ROUTER.columns), true);
    assert.equal(hasWrittenOutEncoder(tableOf('loadgen_request').columns), false);
    assert.equal(hasWrittenOutEncoder(tableOf('instance_sample').columns), false);
    // The same columns in another order are not router_requests' layout.
    assert.equal(hasWrittenOutEncoder([...ROUTER.columns].reverse()), false);
  });

  it("writes the same bytes as the generic loop for the bench's documents", () => {
    const records = benchRecords();
    const written = encodeWith(rowEncoder(ROUTER.columns), records);
    const generic = encodeWith(genericRowEncoder(ROUTER.columns), records);
    assert.equal(written.rows, records.length);
    assert.deepEqual(written.unusable, []);
    assert.ok(written.data.equals(generic.data));
    // And binaryRows, as a page is encoded.
    assert.ok(binaryRows(ROUTER, records).data.equals(generic.data));
  });

  it('writes the same bytes, counts the same cleaned rows and leaves out the same records at every edge', () => {
    const written = encodeWith(rowEncoder(ROUTER.columns), EDGES);
    const generic = encodeWith(genericRowEncoder(ROUTER.columns), EDGES);
    assert.ok(written.data.equals(generic.data));
    assert.equal(written.rows, generic.rows);
    assert.equal(written.cleaned, generic.cleaned);
    assert.equal(written.cleaned, 2);
    assert.deepEqual(written.unusable, generic.unusable);
    assert.deepEqual(written.unusable, [
      'postgres: received_at is not a time: not a time',
      'postgres: received_at is not a time: Invalid Date',
      'postgres: status is out of range: 2147483648',
      'postgres: app_index is out of range: 1.5',
      'postgres: bytes_sent is out of range: 9007199254740992',
      'postgres: bytes_received is out of range: many',
    ]);
    assert.equal(written.rows, EDGES.length - 6);
  });

  it('gives every column of every other table the generic encoding (one field() per column)', () => {
    const spec = tableOf('loadgen_request');
    const record = { runId: 7, correlationId: 'c', startedAt: '2026-11-22T10:00:00.000001Z', durationMs: 1.5 };
    const tuples = tupleWriter(1);
    tuples.row(spec.columns.length);
    rowEncoder(spec.columns)(tuples, record);
    const direct = tupleWriter(1);
    direct.row(spec.columns.length);
    for (const [column, toValue, type] of spec.columns) direct.field(type, toValue(record), column);
    assert.ok(tuples.done().data.equals(direct.done().data));
  });
});
