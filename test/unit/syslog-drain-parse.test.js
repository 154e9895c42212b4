// Drain parsing: RFC 5424 messages as the syslog agent writes them, https-batch bodies, RFC 6587
// octet counting over arbitrary splits, and RTR lines -> router requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createOctetCountingFramer, splitHttpBody } from '../../collector/sources/syslog-drain/rfc5424.js';
import { parseSyslogMessage, sourceOf } from '../support/rfc5424-reference.js';
import { appNameOfHostname, routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';
import {
  batchBodies,
  gaugeMessages,
  goRfc5424Time,
  logMessage,
  octetCounted,
  rtrEnvelope,
} from '../support/syslog-agent-standin.js';

const APP = '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b';
const line = (id = 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06', ts = '2026-11-22T10:00:00.123456789Z') =>
  `shop.apps.example.com - [${ts}] "GET /items?id=1 HTTP/1.1" 200 0 5 "-" "loadgen" ` +
  `"10.0.0.1:5000" "10.0.16.4:61000" x_forwarded_for:"10.0.0.1" x_forwarded_proto:"https" vcap_request_id:"${id}" response_time:0.025501 ` +
  `gorouter_time:0.000210 app_id:"${APP}" app_index:"1" instance_id:"inst-1" x_cf_routererror:"-" x_correlation_id:"${id}" x_b3_traceid:"b8fb3d83ae6a43ca5b91591aadde8c06"`;

describe('RFC 5424 as the syslog agent writes it', () => {
  it('formats times like Go: trailing zeros dropped, +00:00', () => {
    assert.equal(goRfc5424Time(1_795_000_000_123_456_789n), '2026-11-18T11:06:40.123456+00:00');
    assert.equal(goRfc5424Time(1_795_000_000_120_000_000n), '2026-11-18T11:06:40.12+00:00');
    assert.equal(goRfc5424Time(1_795_000_000_000_000_000n), '2026-11-18T11:06:40+00:00');
  });

  it('parses an RTR log message with its tags, procid and payload', () => {
    const text = logMessage({
      ...rtrEnvelope(line(), { appGuid: APP, appName: 'my shop_app', routerIndex: 3 }),
      timestamp: 1_795_000_000_123_456_000n,
    }).toString();
    assert.ok(
      text.startsWith(
        `<14>1 2026-11-18T11:06:40.123456+00:00 lab.perf.my-shopapp ${APP} [RTR/3] - [tags@47450 app_id="${APP}" app_name="my shop_app" `,
      ),
    );
    const parsed = parseSyslogMessage(text);
    assert.ok(parsed.ok);
    assert.equal(parsed.message.priority, 14);
    assert.equal(parsed.message.hostname, 'lab.perf.my-shopapp');
    assert.equal(parsed.message.appName, APP);
    assert.deepEqual(sourceOf(parsed.message.procId), { sourceType: 'RTR', instance: '3' });
    assert.equal(parsed.message.structuredData.get('tags@47450')?.get('app_name'), 'my shop_app');
    assert.equal(parsed.message.message, line(), 'the payload, without the newline the agent appends');
  });

  it('unescapes structured data values (\\" \\\\ \\])', () => {
    const parsed = parseSyslogMessage(
      '<14>1 2026-11-18T11:06:40+00:00 a.b.c app [APP/0] - [tags@47450 x="q\\"b\\\\s\\]e" y=""] hello\n',
    );
    assert.ok(parsed.ok);
    assert.equal(parsed.message.structuredData.get('tags@47450')?.get('x'), 'q"b\\s]e');
    assert.equal(parsed.message.structuredData.get('tags@47450')?.get('y'), '');
    assert.equal(parsed.message.message, 'hello');
  });

  it('rejects what is not RFC 5424, with a reason', () => {
    assert.deepEqual(parseSyslogMessage('hello world'), { ok: false, reason: 'not_rfc5424' });
    assert.deepEqual(parseSyslogMessage('<14>1 2026-11-18T11:06:40+00:00 h a p - [unterminated x="1" msg'), {
      ok: false,
      reason: 'bad_structured_data',
    });
    assert.deepEqual(parseSyslogMessage('<14>1 2026-11-18T11:06:40+00:00 h a p - -nospace'), {
      ok: false,
      reason: 'bad_structured_data',
    });
  });

  it('splits an https-batch body into its messages, keeping newlines inside a payload', () => {
    const multi = logMessage({
      timestamp: 1n,
      sourceId: APP,
      instanceId: '0',
      tags: { source_type: 'APP/PROC/WEB' },
      payload: 'line one\nline two',
    });
    const messages = [
      logMessage(rtrEnvelope(line('a'), { appGuid: APP, appName: 'shop' })),
      multi,
      ...gaugeMessages({
        timestamp: 2n,
        sourceId: APP,
        instanceId: '0',
        tags: {},
        metrics: { cpu: { value: 1.5, unit: 'percentage' }, memory: { value: 10, unit: 'bytes' } },
      }),
    ];
    const [body] = batchBodies(messages);
    const split = splitHttpBody(body);
    assert.deepEqual(
      split,
      messages.map((m) => m.toString()),
    );
    assert.equal(
      parseSyslogMessage(split[1]).ok && /** @type {any} */ (parseSyslogMessage(split[1])).message.message,
      'line one\nline two',
    );
    assert.deepEqual(splitHttpBody(Buffer.alloc(0)), []);
  });

  it('splits a body where a newline is followed by a header start, and nowhere else', () => {
    const reference = (/** @type {string} */ body) =>
      body.split(/(?<=\n)(?=<\d{1,3}>1 )/).filter((m) => m !== '' && m !== '\n');
    const pieces = [
      '<14>1 t h a [RTR/0] - - x\n',
      '\n',
      '<1>1 ',
      '<1234>1 ',
      '<14>2 ',
      '<>1 ',
      'é',
      '\n<',
      '<',
      '\n\n',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length;
    for (let i = 0; i < 2000; i++) {
      const body = Array.from({ length: 1 + (i % 12) }, () => pieces[next()]).join('');
      assert.deepEqual(splitHttpBody(Buffer.from(body)), reference(body), JSON.stringify(body));
    }
  });

  it('takes the app name from the tag, else from the hostname', () => {
    assert.equal(appNameOfHostname('org.space.app'), 'app');
    assert.equal(appNameOfHostname('some-host'), null);
    const withoutTags = `<14>1 2026-11-18T11:06:40+00:00 lab.perf.shop ${APP} [RTR/0] - - ${line()}\n`;
    const result = routerRequestFromSyslog(withoutTags, { correlationField: 'x_correlation_id' });
    assert.ok(result.ok);
    assert.equal(result.record.appName, 'shop');
  });
});

describe('RTR messages -> router requests', () => {
  it('gives exactly what the file source gives for the same line, plus the app name', () => {
    const viaDrain = routerRequestFromSyslog(
      logMessage(rtrEnvelope(line(), { appGuid: APP, appName: 'shop' })).toString(),
      { correlationField: 'x_correlation_id' },
    );
    const viaFile = parseGorouterLine(line(), { correlationField: 'x_correlation_id' });
    assert.ok(viaDrain.ok && viaFile.ok);
    assert.deepEqual(viaDrain.record, { ...viaFile.record, appName: 'shop' });
    assert.equal(viaDrain.record.receivedAt, '2026-11-22T10:00:00.123456Z');
    assert.equal(viaDrain.record.responseTimeMs, 25.501);
    assert.equal(viaDrain.record.appIndex, 1);
  });

  it('ignores other sources and counts bad router lines as rejected', () => {
    const app = logMessage({
      timestamp: 1n,
      sourceId: APP,
      instanceId: '0',
      tags: { source_type: 'APP/PROC/WEB' },
      payload: 'started',
    }).toString();
    assert.deepEqual(routerRequestFromSyslog(app, {}), { ok: false, reason: 'not_rtr', ignored: true });
    const [gauge] = gaugeMessages({
      timestamp: 1n,
      sourceId: APP,
      instanceId: '0',
      tags: {},
      metrics: { cpu: { value: 1, unit: 'percentage' } },
    });
    assert.deepEqual(routerRequestFromSyslog(gauge.toString(), {}), { ok: false, reason: 'not_rtr', ignored: true });
    const broken = logMessage(
      rtrEnvelope('shop.apps.example.com - [2026-11-22T10:00:00Z] "GET / HTTP/1.1" abc', {
        appGuid: APP,
        appName: 'shop',
      }),
    ).toString();
    assert.deepEqual(routerRequestFromSyslog(broken, {}), { ok: false, reason: 'truncated', ignored: false });
    assert.deepEqual(routerRequestFromSyslog('garbage', {}), { ok: false, reason: 'not_rfc5424', ignored: false });
  });
});

describe('RFC 6587 octet counting', () => {
  const messages = [line('a'), line('b'), 'x'.repeat(70_000), line('c')].map((payload) =>
    logMessage({
      timestamp: 1n,
      sourceId: APP,
      instanceId: '0',
      tags: { source_type: 'RTR', app_name: 'ümlaut' },
      payload,
    }),
  );
  const stream = Buffer.concat(messages.map(octetCounted));

  it('reassembles messages from any split of the stream (byte lengths, multi-byte UTF-8, > 64 KiB)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 40 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const framer = createOctetCountingFramer({ maxMessageBytes: 1 << 20 });
        const frames = [];
        let from = 0;
        for (const p of [...points, stream.length]) {
          frames.push(...framer.push(stream.subarray(from, p)));
          from = p;
        }
        assert.deepEqual(
          frames.map((f) => (f.kind === 'message' ? f.text : f)),
          messages.map((m) => m.toString()),
        );
        assert.equal(framer.buffered, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('skips garbage up to the next frame and reports it', () => {
    const framer = createOctetCountingFramer({ maxMessageBytes: 1 << 20 });
    const frames = framer.push(
      Buffer.concat([octetCounted(messages[0]), Buffer.from('this is no frame at all\n'), octetCounted(messages[1])]),
    );
    assert.deepEqual(
      frames.map((f) => (f.kind === 'message' ? 'message' : `${f.reason}:${f.bytes}`)),
      ['message', 'bad_frame:24', 'message'],
    );
    assert.equal(/** @type {any} */ (frames[2]).text, messages[1].toString());
  });

  it('skips a frame over the limit without holding it, then goes on', () => {
    const framer = createOctetCountingFramer({ maxMessageBytes: 1000 });
    const big = octetCounted(Buffer.alloc(5000, 'y'));
    const frames = [
      ...framer.push(big.subarray(0, 2000)),
      ...framer.push(big.subarray(2000)),
      ...framer.push(octetCounted(Buffer.from('<14>1 ok'))),
    ];
    assert.deepEqual(
      frames.map((f) => (f.kind === 'message' ? f.text : `${f.reason}:${f.bytes}`)),
      ['too_large:5000', '<14>1 ok'],
    );
    assert.ok(framer.buffered < 100);
  });
});
