// The one cleaning rule for text bound for PostgreSQL (exporters/postgres/rows/clean-text.js), in each
// encoder: the binary COPY tuples of every kind and the load generator's rows. What they produce is
// checked against a strict UTF-8 decoder, which refuses what PostgreSQL refuses besides 0x00.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cleanedText } from '../../exporters/postgres/rows/clean-text.js';
import { binaryRows } from '../../exporters/postgres/sink/copy.js';
import { loadgenRowEncoder } from '../../exporters/postgres/sink/loadgen-rows.js';
import { tableOf } from '../../exporters/postgres/rows/tables.js';

const strict = new TextDecoder('utf-8', { fatal: true });
/** PostgreSQL takes the bytes as text: valid UTF-8 and no 0x00. @param {Uint8Array} bytes */
const storable = (bytes) => !bytes.includes(0) && typeof strict.decode(bytes) === 'string';

const ROUTER = {
  kind: 'router_request',
  receivedAt: '2026-11-22T10:00:00.000001Z',
  appGuid: '906bb879-1f17-fefa-8616-dbac4542d323',
  appName: 'shop',
  vcapRequestId: '5f25831c-d33a-03c2-f263-90ceb63a5ace',
  method: 'GET',
};

/** Text fields of router_requests rows read back from binary tuples, in column order. */
function textFields(/** @type {import('../../core/types.js').EncodedRows} */ encoded) {
  const spec = tableOf('router_request');
  /** @type {string[][]} */
  const rows = [];
  let o = 0;
  while (o < encoded.data.length) {
    o += 2;
    /** @type {string[]} */
    const texts = [];
    for (const [, , type] of spec.columns) {
      const length = encoded.data.readInt32BE(o);
      o += 4;
      const bytes = encoded.data.subarray(o, o + Math.max(0, length));
      o += Math.max(0, length);
      if (type === 'text' && length >= 0) {
        assert.ok(storable(bytes), `not storable: ${bytes.toString('hex')}`);
        texts.push(strict.decode(bytes));
      }
    }
    rows.push(texts);
  }
  return rows;
}

describe('cleanedText', () => {
  for (const [text, expected] of /** @type {Array<[string, string | undefined]>} */ ([
    ['plain /path?q=1', undefined],
    ['ü é 日本', undefined],
    ['a pair \ud83d\ude00 (emoji)', undefined],
    ['nul\0here', 'nul\ufffdhere'],
    ['\0\0', '\ufffd\ufffd'],
    ['lone high \ud800 x', 'lone high \ufffd x'],
    ['lone low \udc00', 'lone low \ufffd'],
    ['high at the end \ud83d', 'high at the end \ufffd'],
    ['reversed \ude00\ud83d', 'reversed \ufffd\ufffd'],
    ['decoded already \ufffd', 'decoded already \ufffd'],
  ])) {
    it(`${JSON.stringify(text)} -> ${JSON.stringify(expected)}`, () => assert.equal(cleanedText(text), expected));
  }
});

describe('every encoder cleans text the same way', () => {
  it('instance samples (binary COPY): 0x00 and lone surrogates become U+FFFD, and the record is counted once', () => {
    const spec = tableOf('instance_sample');
    const sample = {
      ts: new Date(0),
      appGuid: 'g',
      appName: 'sh\0op',
      processType: 'w\ud800eb',
      instanceIndex: 0,
      state: 'RUNNING',
    };
    const encoded = binaryRows(spec, [sample, { ...sample, appName: 'shop', processType: 'web' }]);
    assert.equal(encoded.cleaned, 1);
    const text = encoded.data.toString('utf8');
    assert.ok(text.includes('sh\ufffdop') && text.includes('w\ufffdeb') && !text.includes('sh\0op'));
  });

  it('binary COPY: counts each record with cleaned text once, keeps clean ones byte for byte', () => {
    const encoded = /** @type {import('../../core/types.js').EncodedRows} */ (
      binaryRows(tableOf('router_request'), [
        { ...ROUTER, path: '/ok', instanceId: 'i-1' },
        { ...ROUTER, path: '/a\0b', instanceId: 'x\ud800' },
        { ...ROUTER, path: '/ü\ud83d\ude00', instanceId: 'i-2' },
        { ...ROUTER, path: '/replaced\ufffd', instanceId: 'i-3' },
      ])
    );
    assert.equal(encoded.rows, 4);
    assert.equal(encoded.cleaned, 2);
    const rows = textFields(encoded);
    assert.deepEqual(
      rows.map((texts) => [texts[2], texts[4]]),
      [
        ['i-1', '/ok'],
        ['x\ufffd', '/a\ufffdb'],
        ['i-2', '/ü\ud83d\ude00'],
        ['i-3', '/replaced\ufffd'],
      ],
    );
  });

  it('binary COPY: any string at all is stored as valid UTF-8 without 0x00 (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary-ascii' }), (path, ua) => {
        const encoded = /** @type {import('../../core/types.js').EncodedRows} */ (
          binaryRows(tableOf('router_request'), [{ ...ROUTER, path, instanceId: ua }])
        );
        const [texts] = textFields(encoded);
        assert.equal(texts[4], cleanedText(path) ?? path);
        assert.equal(encoded.cleaned, cleanedText(path) !== undefined || cleanedText(ua) !== undefined ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });

  it("the load generator's rows: the worker and the error, with byte counts that stay exact", () => {
    const encoder = loadgenRowEncoder({ runId: 1, worker: 'w\0' });
    const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const page = Buffer.alloc(200);
    const end = encoder.write(page, 0, id, 0, 1, 0, 'err\0\ud800');
    assert.equal(end, encoder.maxBytes('err\0\ud800'));
    assert.ok(!page.subarray(0, end).includes(Buffer.from('err\0')));
    assert.ok(page.subarray(0, end).includes(Buffer.from('err\ufffd\ufffd')));
    assert.ok(page.subarray(0, end).includes(Buffer.from('w\ufffd')));
    encoder.write(page, 0, id, 0, 1, 200, null);
    assert.equal(encoder.cleaned, 2, 'every row of a worker whose name was cleaned');
    const clean = loadgenRowEncoder({ runId: 1, worker: 'w1' });
    clean.write(page, 0, id, 0, 1, 0, 'timeout');
    clean.write(page, 0, id, 0, 1, 0, 'bad\0');
    assert.equal(clean.cleaned, 1);
  });
});
