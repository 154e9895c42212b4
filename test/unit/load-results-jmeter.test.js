// JMeter's tab-delimited and XML JTL, from literal files shaped as JMeter 5.6.3 writes them: the same
// samples read the same whatever the shape, the XML streamed in any chunking.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readLoadResults } from '../../collector/sources/load-results/index.js';
import { xmlVariableName } from '../../collector/sources/load-results/jmeter.js';
import { XML_JTL, jtl, readAll } from '../support/load-results.js';

/** @param {any} r */
const fields = (r) => [r.correlationId, r.startedAt, r.durationMs, r.status, r.error, r.method, r.url, r.bytes];

/** An XML JTL around `samples`. @param {string} samples */
const xml = (samples) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<testResults version="1.2">\n${samples}</testResults>\n`;

const SAMPLE = (/** @type {number} */ i, /** @type {string} */ rest = '') =>
  `<httpSample t="${i}" ts="${1795618318000 + i}" s="true" lb="GET /${i}" rc="200" rm="OK" by="2" ` +
  `paasmon__id="0b1e6f8a-1d2c-4e5f-8a9b-${String(i).padStart(12, '0')}">${rest}</httpSample>\n`;

describe('JMeter JTL, tab-delimited and XML', () => {
  it('reads the same samples from the comma, tab and XML shapes', async () => {
    const comma = await readAll(jtl(','));
    assert.equal(comma.records.length, 2);
    for (const [text, variant] of [
      [jtl('\t'), 'tab-delimited'],
      [XML_JTL, 'xml'],
    ]) {
      const read = await readAll(text);
      assert.deepEqual([read.format, read.variant, [...read.skipped]], ['jmeter', variant, []]);
      assert.deepEqual(read.records.map(fields), comma.records.map(fields));
    }
    const [ok, unavailable] = comma.records;
    assert.deepEqual(fields(ok), [
      '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
      '2026-11-25T14:51:58.544000Z',
      38,
      200,
      null,
      'GET',
      'http://127.0.0.1:55894/',
      124,
    ]);
    assert.deepEqual([unavailable.status, unavailable.error], [503, 'Service Unavailable']);
  });

  it('reads quoted tab-delimited fields that hold tabs, quotes and newlines; a short row is one skip', async () => {
    const header =
      'timeStamp\telapsed\tlabel\tresponseCode\tresponseMessage\tsuccess\tfailureMessage\tURL\t"paasmon_id"';
    const text = [
      header,
      '1795618318544\t5\t"POST /a\tb ""c""\nd"\t200\tOK\ttrue\t\thttp://h/a\t0B1E6F8A-1D2C-4E5F-8A9B-0C1D2E3F4A5B',
      '1795618318550\t7\tGET /\t200\tOK\tfalse\t"Assertion failed:\tbody"\thttp://h/\t',
      '1795618318560\t7\tGET /',
    ].join('\n');
    const { records, skipped, examples } = await readAll(text, {}, 5);
    assert.deepEqual(
      records.map((r) => [r.method, r.url, r.error, r.correlationId]),
      [
        ['POST', 'http://h/a', null, '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b'],
        ['GET', 'http://h/', 'Assertion failed:\tbody', records[1].correlationId],
      ],
    );
    assert.match(records[1].correlationId, /^row-2-/);
    assert.deepEqual([...skipped], [['short_row', 1]]);
    assert.match(examples.get('short_row'), /^line 5: 1795618318560\t7\tGET \/$/);
  });

  it('reads XML samples: attributes, entities, the URL child, a failed assertion, non-HTTP samples', async () => {
    const text = xml(
      '<httpSample t="7" lt="5" ts="1795618318570" s="false" lb="GET /?a=1&amp;b=&quot;ä&quot;" rc="200" rm="OK" ' +
        'tn="t 1" by="2" correlation__id="1b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b">\n' +
        '  <assertionResult><name>size</name><failure>false</failure><error>false</error></assertionResult>\n' +
        '  <assertionResult><name>body</name><failure>true</failure><error>false</error>' +
        '<failureMessage>Test failed: text expected to contain /ok/</failureMessage></assertionResult>\n' +
        '  <assertionResult><failure>true</failure><failureMessage>second</failureMessage></assertionResult>\n' +
        '  <java.net.URL>http://h/?a=1&amp;b=2</java.net.URL>\n</httpSample>\n' +
        '<sample t="1004" ts="1795618318580" s="false" lb="JDBC query" rc="Non HTTP response code: ' +
        'java.net.SocketTimeoutException" rm="Non HTTP response message: Read timed out" by="0"/>\n' +
        '<httpSample t="3" ts="1795618318590" s="true" lb="GET /x" rc="200" rm="OK" by="5"/>\n',
    );
    const { records, skipped } = await readAll(text, {}, 3);
    assert.deepEqual([...skipped], []);
    assert.deepEqual(
      records.map((r) => [r.startedAtMs, r.durationMs, r.status, r.error, r.method, r.url, r.bytes]),
      [
        [1795618318570, 7, 200, 'Test failed: text expected to contain /ok/', 'GET', 'http://h/?a=1&b=2', 2],
        [1795618318580, 1004, 0, 'timeout', null, 'JDBC query', 0],
        [1795618318590, 3, 200, null, 'GET', 'GET /x', 5],
      ],
    );
    assert.equal(records[0].correlationId, '1b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b');
    assert.match(records[1].correlationId, /^row-2-/);
  });

  it('takes a sample with sub-samples as one request, the parent', async () => {
    const text = xml(
      SAMPLE(
        40,
        '\n  <httpSample t="10" ts="1795618318041" s="true" lb="GET /40-0" rc="302" rm="Found" by="0"/>' +
          '\n  <httpSample t="30" ts="1795618318051" s="true" lb="GET /40-1" rc="200" rm="OK" by="9">' +
          '<java.net.URL>http://h/redirected</java.net.URL></httpSample>\n',
      ) + SAMPLE(41),
    );
    const { records } = await readAll(text);
    assert.deepEqual(
      records.map((r) => [r.url, r.durationMs, r.status]),
      [
        ['GET /40', 40, 200],
        ['GET /41', 41, 200],
      ],
    );
  });

  it('loses nothing to a file cut between samples; a cut inside one is one truncated sample', async () => {
    const samples = [1, 2, 3].map((i) => SAMPLE(i)).join('');
    const whole = xml(samples);
    const between = whole.slice(0, whole.indexOf('</testResults>'));
    const cuts = [
      [between, 3, []],
      [between.slice(0, between.lastIndexOf('</httpSample>') + 3), 2, [['truncated', 1]]],
      [between.slice(0, between.lastIndexOf('paasmon__id')), 2, [['truncated', 1]]],
    ];
    for (const [text, requests, skips] of cuts) {
      const { records, skipped } = await readAll(/** @type {string} */ (text), {}, 7);
      assert.equal(records.length, requests);
      assert.deepEqual([...skipped], skips);
    }
  });

  it('counts markup that is not well-formed as xml_framing with its line, and reads the samples around it', async () => {
    const text = xml(`${SAMPLE(1)}<httpSample t=5 ts="1" s="true"/>\n${SAMPLE(2)}`);
    const { records, skipped, examples } = await readAll(text);
    assert.deepEqual(
      records.map((r) => r.url),
      ['GET /1', 'GET /2'],
    );
    assert.equal(skipped.get('xml_framing'), 1);
    assert.match(examples.get('xml_framing'), /^line 4: Unquoted attribute value/);
  });

  it('reads the XML the same in any chunking, a character split across chunks included', async () => {
    const text = xml(SAMPLE(1, '<java.net.URL>http://h/ä€😀</java.net.URL>') + SAMPLE(2));
    const whole = await readAll(text);
    assert.equal(whole.records[0].url, 'http://h/ä€😀');
    for (const size of [1, 2, 3, 7]) assert.deepEqual((await readAll(text, {}, size)).records, whole.records);
  });

  it('streams: the first page comes before the file has been read to its end', async () => {
    const bytes = Buffer.from(xml(Array.from({ length: 3000 }, (_, i) => SAMPLE(i)).join('')));
    const chunks = Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) =>
      bytes.subarray(i * 4096, (i + 1) * 4096),
    );
    let given = 0;
    async function* slowly() {
      for (const chunk of chunks) {
        given += 1;
        yield chunk;
      }
    }
    const { pages } = await readLoadResults(Readable.from(slowly()), { pageSize: 100 });
    const first = await pages[Symbol.asyncIterator]().next();
    assert.equal(first.value?.records.length, 100);
    assert.ok(given < chunks.length / 4, `${given} of ${chunks.length} chunks read for the first page`);
    await pages.return(undefined);
  });

  it("decodes XStream's escaped variable names", () => {
    assert.deepEqual(['paasmon__id', 'a_-b', 'x-correlation-id'].map(xmlVariableName), [
      'paasmon_id',
      'a$b',
      'x-correlation-id',
    ]);
  });
});
