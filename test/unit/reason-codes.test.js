// Skip and error reasons come from one frozen module: every reason the parsers give for bad input
// is one of its codes, so a dashboard or alert never names a reason no source gives.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';
import { mapDocument } from '../../collector/sources/router-logs/documents.js';
import { routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { createOctetCountingFramer } from '../../collector/sources/syslog-drain/rfc5424.js';
import { routerRequestFromEnvelope } from '../../collector/sources/log-cache/envelopes.js';
import { IMPORT_FORMATS } from '../../collector/sources/load-results/formats.js';
import { readLoadResults } from '../../collector/sources/load-results/index.js';
import * as codes from '../../core/reason-codes.js';
import { SAMPLES } from '../support/load-results.js';

const LINE =
  'app.example.com - [2025-09-18T05:32:10.722911143Z] "GET / HTTP/1.1" 200 0 323 "-" "curl" "10.0.0.1:1" ' +
  '"10.0.0.2:2" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" ' +
  'response_time:0.025501 gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0"';

describe('reason codes', () => {
  it('are frozen', () => {
    for (const [name, value] of Object.entries(codes)) {
      if (value instanceof Set) continue;
      assert.ok(Object.isFrozen(value), `${name} is frozen`);
    }
    assert.throws(() => {
      /** @type {any} */ (codes.LINE).NEW = 'new';
    });
  });

  it('name every reason the parsers give for bad input', () => {
    const reasons = new Set();
    const lines = [
      '',
      'hello',
      '2025-09-18T05:32:10.74+0000 [APP/PROC/WEB/0] OUT hi',
      '2025-09-18T05:32:10.74+0000 [RTR/1] OUT ',
      'app.example.com - [2025-09-18T05:32:10.7229',
      LINE.replace('2025-09-18T05:32:10.722911143Z', 'yesterday'),
      LINE.replace('" 200 ', '" abc '),
      LINE.replace(' 0 323 ', ' x y '),
      LINE.replace('response_time:0.025501', 'response_time:fast'),
      LINE.slice(0, LINE.indexOf('"10.0.0.1')),
    ];
    for (const line of lines) {
      const parsed = parseGorouterLine(line);
      if (!parsed.ok) reasons.add(parsed.reason);
    }
    for (const document of [null, {}, { message: 'hello' }, { '@message': 'hello' }]) {
      for (const format of /** @type {const} */ (['auto', 'raw', 'logsearch'])) {
        const mapped = mapDocument(document, { format, fields: /** @type {any} */ ({}), lineFields: ['message'] });
        if (!mapped.ok) reasons.add(mapped.reason);
      }
    }
    for (const message of [
      'hello',
      '<14>1 2025-09-18T05:32:10Z host app [APP/PROC/WEB/0] - [x] hi',
      '<14>1 - - - [RTR/0] - - ',
    ]) {
      const result = routerRequestFromSyslog(message, {});
      if (!result.ok) reasons.add(result.reason);
    }
    const framer = createOctetCountingFramer({ maxMessageBytes: 10 });
    for (const frame of framer.push(Buffer.from('garbage 99 <14>1 aaaaaaaaaaaaaaaaaaaaaaaa'))) {
      if (frame.kind === 'error') reasons.add(frame.reason);
    }
    for (const envelope of [{ tags: {} }, { log: { payload: '' }, tags: { source_type: 'APP' } }]) {
      const result = routerRequestFromEnvelope(/** @type {any} */ (envelope), {});
      if (!result.ok) reasons.add(result.reason);
    }
    assert.ok(reasons.size >= 10, [...reasons].join(', '));
    for (const reason of reasons) assert.ok(codes.ALL_REASONS.has(reason), `${reason} is in core/reason-codes.js`);
  });

  it('name every reason the load-result parsers give for bad input, whatever the format and shape', async () => {
    const reasons = new Set();
    for (const format of IMPORT_FORMATS) {
      for (const shape of format.shapes) {
        const sample = Buffer.from(SAMPLES[`${format.name} ${shape.variant}`]);
        for (const bad of badInputs(sample)) {
          for (const [reason] of await skipsOf(bad, format.name)) reasons.add(reason);
        }
      }
    }
    for (const reason of reasons) assert.ok(codes.ALL_REASONS.has(reason), `${reason} is in core/reason-codes.js`);
    for (const reason of ['not_k6', 'not_gatling', 'xml_framing', 'csv_framing', 'bad_json', 'truncated'])
      assert.ok(reasons.has(reason), `bad input reached ${reason}: ${[...reasons].join(', ')}`);
  });
});

/**
 * Bad variants of a good file: cut at several places, digits turned to letters, lines of other
 * formats appended, and bytes overwritten at seeded random places.
 * @param {Buffer} sample @returns {Buffer[]}
 */
function badInputs(sample) {
  const cuts = [0.3, 0.5, 0.9].map((at) => sample.subarray(0, Math.floor(sample.length * at)));
  const letters = Buffer.from(sample.toString('latin1').replace(/[0-9]/g, 'x'), 'latin1');
  const junk = Buffer.concat([sample, Buffer.from('hello\n{}\n{"type":"x"}\n[1]\n1,2\n<x a=1 <\n"open\n')]);
  const noise = Buffer.from(' ,\t"{}<>&x0\n\0\xff');
  let seed = 7;
  const random = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const overwritten = Array.from({ length: 12 }, () => {
    const copy = Buffer.from(sample);
    for (let i = 0; i < 4; i++) copy[random(copy.length)] = noise[random(noise.length)];
    return copy;
  });
  return [...cuts, letters, junk, ...overwritten];
}

/**
 * The skip reasons of reading `content` as `format`; a file that cannot be read at all must say so
 * in one line.
 * @param {Buffer} content @param {string} format @returns {Promise<Map<string, number>>}
 */
async function skipsOf(content, format) {
  const skipped = new Map();
  try {
    const read = await readLoadResults(Readable.from([content]), { format, startedAtMs: 0 });
    for await (const page of read.pages) for (const [reason, n] of page.skipped) skipped.set(reason, n);
  } catch (err) {
    assert.doesNotMatch(String(/** @type {Error} */ (err).message), /\n/);
  }
  return skipped;
}
