import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { normalizeId } from '../../collector/sources/gorouter/correlation-ids.js';
import { fieldNamesFor, mapDocument } from '../../collector/sources/router-logs/documents.js';
import { parseGorouterLine, parseRouterTimestamp, secondsToMs } from '../../collector/sources/gorouter/parse.js';
import { sane } from '../support/fuzz-cases.js';

// The three real lines of the reference, verbatim.
const MODERN =
  'myapp.apps.example.com - [2025-09-18T05:32:10.722911143Z] "GET / HTTP/2.0" 200 0 323 "-" "Mozilla/5.0" "10.0.136.0:26678" "10.32.2.6:61225" x_forwarded_for:"35.144.46.133, 10.0.136.0" x_forwarded_proto:"https" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" response_time:0.025501 gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0" instance_id:"57341afc-6d72-4e2d-4b80-8609" failed_attempts:0 failed_attempts_time:"-" dns_time:0.000000 dial_time:0.001322 tls_time:0.009895 backend_time:0.025416 local_address:"10.0.129.9:41652" x_cf_routererror:"-" x_correlation_id:"-" x_b3_traceid:"b8fb3d83ae6a43ca5b91591aadde8c06" x_b3_spanid:"5b91591aadde8c06" x_b3_parentspanid:"-" b3:"b8fb3d83ae6a43ca5b91591aadde8c06-5b91591aadde8c06"';
const TRACEPARENT =
  'blog.apps.example.com - [2024-08-09T01:01:10.423829188Z] "POST /api/counter HTTP/2.0" 200 15 39 "https://blog.apps.example.com/entries/814" "Mozilla/5.0" "10.11.12.13:53465" "10.0.6.10:61010" x_forwarded_for:"10.11.12.13" x_forwarded_proto:"https" vcap_request_id:"f57d0fbe-d79e-4462-702e-941edbc834c3" response_time:0.940925 gorouter_time:0.000264 app_id:"509e69f4-101f-4175-82cb-c2de2b7291f8" app_index:"0" instance_id:"49dbefe1-4773-4705-73e6-2159" x_cf_routererror:"-" traceparent:"00-f57d0fbed79e4462702e941edbc834c3-702e941edbc834c3-01" tracestate:"gorouter=702e941edbc834c3"';
const LEGACY =
  'www.example.com - [14/06/2016:17:51:32.459 +0000] "GET /user/ HTTP/1.1" 200 0 103455 "-" "Mozilla/5.0" 192.0.2.132:46359 x_forwarded_for:"198.51.100.120" x_forwarded_proto:"http" vcap_request_id:9365d216-623a-45cb-6ef6-eba495c19fa8 response_time:0.059468637 app_id:79cc58aa-3737-43ae-ac71-39a2843b5178';

/** @param {string} line @param {string} [correlationField] */
const record = (line, correlationField = 'x_correlation_id') => {
  const result = parseGorouterLine(line, { correlationField });
  assert.ok(result.ok, `expected a record, got ${JSON.stringify(result)}`);
  return result.record;
};

describe('parseGorouterLine: real lines', () => {
  it('modern line with timing fields and B3 headers', () => {
    assert.deepEqual(record(MODERN), {
      kind: 'router_request',
      receivedAt: '2025-09-18T05:32:10.722911Z',
      appGuid: '1ec90566-397f-4238-a452-ad4d246f73e4',
      appName: null,
      appIndex: 0,
      instanceId: '57341afc-6d72-4e2d-4b80-8609',
      method: 'GET',
      path: '/',
      status: 200,
      responseTimeMs: 25.501,
      gorouterTimeMs: 0.085,
      responseTimeResolutionMs: null,
      bytesReceived: 0,
      bytesSent: 323,
      vcapRequestId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
      correlationId: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
      routerError: null,
      traceId: 'b8fb3d83ae6a43ca5b91591aadde8c06',
    });
  });

  it('line with W3C traceparent and a referer', () => {
    const r = record(TRACEPARENT);
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/api/counter');
    assert.equal(r.bytesReceived, 15);
    assert.equal(r.responseTimeMs, 940.925);
    assert.equal(r.gorouterTimeMs, 0.264);
    assert.equal(r.traceId, 'f57d0fbed79e4462702e941edbc834c3');
    assert.equal(r.correlationId, 'f57d0fbe-d79e-4462-702e-941edbc834c3');
  });

  it('legacy line: dd/MM/yyyy time, unquoted values, no gorouter_time or instance_id', () => {
    assert.deepEqual(record(LEGACY), {
      kind: 'router_request',
      receivedAt: '2016-06-14T17:51:32.459000Z',
      appGuid: '79cc58aa-3737-43ae-ac71-39a2843b5178',
      appName: null,
      appIndex: null,
      instanceId: null,
      method: 'GET',
      path: '/user/',
      status: 200,
      responseTimeMs: 59.468637,
      gorouterTimeMs: null,
      responseTimeResolutionMs: null,
      bytesReceived: 0,
      bytesSent: 103455,
      vcapRequestId: '9365d216-623a-45cb-6ef6-eba495c19fa8',
      correlationId: '9365d216-623a-45cb-6ef6-eba495c19fa8',
      routerError: null,
      traceId: null,
    });
  });
});

describe('parseGorouterLine: variants', () => {
  it("strips the `cf logs` prefix; the [RTR/n] index is the router's, never the app's", () => {
    const r = record(`   2025-09-18T05:32:10.74+0000 [RTR/7] OUT ${MODERN}`);
    assert.equal(r.appIndex, 0);
    assert.equal(r.responseTimeMs, 25.501);
  });

  it('skips other `cf logs` sources as not_rtr', () => {
    assert.deepEqual(parseGorouterLine('2025-09-18T05:32:10.74+0000 [APP/PROC/WEB/0] OUT listening on 8080'), {
      ok: false,
      reason: 'not_rtr',
    });
  });

  it('prefers the configured extra header over vcap_request_id, normalised to UUID form', () => {
    const line = MODERN.replace('x_correlation_id:"-"', 'x_correlation_id:"0123456789ABCDEF0123456789ABCDEF"');
    assert.equal(record(line).correlationId, '01234567-89ab-cdef-0123-456789abcdef');
    assert.equal(record(line, 'x_other').correlationId, 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06');
  });

  it('reads extra headers after x_cf_routererror and a router error', () => {
    const line = MODERN.replace('x_cf_routererror:"-"', 'x_cf_routererror:"endpoint_failure"');
    assert.equal(record(line).routerError, 'endpoint_failure');
  });

  it('takes "-" anywhere as absent', () => {
    const line =
      'a.example.com - [2025-09-18T05:32:10.722911143Z] "-" - - - "-" "-" "-" "-" vcap_request_id:"-" response_time:"-" gorouter_time:"-" app_id:"-" app_index:"-" x_cf_routererror:"unknown_route"';
    const r = record(line);
    assert.deepEqual(
      [
        r.method,
        r.path,
        r.status,
        r.bytesReceived,
        r.bytesSent,
        r.responseTimeMs,
        r.gorouterTimeMs,
        r.appGuid,
        r.appIndex,
        r.vcapRequestId,
        r.correlationId,
      ],
      [null, null, null, null, null, null, null, null, null, null, null],
    );
    assert.equal(r.routerError, 'unknown_route');
  });

  it('keeps a line truncated after its head, without the fields that were cut', () => {
    const cut = MODERN.slice(0, MODERN.indexOf('app_id:') + 20);
    const r = record(cut);
    assert.equal(r.responseTimeMs, 25.501);
    assert.equal(r.appIndex, null);
  });

  it('gives a reason for lines it cannot use', () => {
    const cases = /** @type {Array<[string, string]>} */ ([
      ['', 'empty'],
      ['hello world', 'not_gorouter'],
      ['myapp.apps.example.com - [2025-09-18T05:32:10.7229', 'truncated'],
      [MODERN.replace('2025-09-18T05:32:10.722911143Z', '2025-13-18T05:32:10Z'), 'bad_timestamp'],
      [MODERN.replace('" 200 0 323', '" 700 0 323'), 'bad_status'],
      [MODERN.replace('" 200 0 323', '" 200 x 323'), 'bad_bytes'],
      [MODERN.replace('response_time:0.025501', 'response_time:-0.5'), 'bad_duration'],
      [MODERN.replace('gorouter_time:0.000085', 'gorouter_time:NaN'), 'bad_duration'],
    ]);
    for (const [line, reason] of cases)
      assert.deepEqual(parseGorouterLine(line), { ok: false, reason }, line.slice(0, 60));
  });
});

describe('parseRouterTimestamp', () => {
  it('converts both forms and offsets to UTC with microseconds', () => {
    assert.equal(parseRouterTimestamp('2025-09-18T05:32:10.722911143Z'), '2025-09-18T05:32:10.722911Z');
    assert.equal(parseRouterTimestamp('2025-09-18T07:32:10.5+02:00'), '2025-09-18T05:32:10.500000Z');
    assert.equal(parseRouterTimestamp('14/06/2016:17:51:32.459 +0000'), '2016-06-14T17:51:32.459000Z');
    assert.equal(parseRouterTimestamp('01/01/2016:00:30:00.000 +0100'), '2015-12-31T23:30:00.000000Z');
    assert.equal(parseRouterTimestamp('2025-02-30T00:00:00Z'), null);
    // The same with a fraction (the form read digit by digit): days, seconds and years that are not.
    assert.equal(parseRouterTimestamp('2025-02-30T00:00:00.5Z'), null);
    assert.equal(parseRouterTimestamp('2024-02-29t00:00:00.5z'), '2024-02-29T00:00:00.500000Z');
    assert.equal(parseRouterTimestamp('2025-09-18 05:32:10.722911143Z'), '2025-09-18T05:32:10.722911Z');
    // Second 60 is carried into the next minute (not past midnight), as it always was.
    assert.equal(parseRouterTimestamp('2025-09-18T05:32:60.5Z'), '2025-09-18T05:33:00.500000Z');
    assert.equal(parseRouterTimestamp('2016-12-31T23:59:60.5Z'), null);
  });
});

describe('parseRouterTimestamp and secondsToMs (fast-check, against arithmetic on the parts)', () => {
  // Times of a few seconds, so that runs of one second (kept from the line before) come often.
  const time = fc.record({
    second: fc.integer({ min: 0, max: 3 }),
    fraction: fc.stringMatching(/^[0-9]{1,9}$/),
    zone: fc.constantFrom('Z', 'z', '+01:00', '-0230'),
    separator: fc.constantFrom('T', ' '),
  });
  it('gives the UTC time with microseconds, whichever times came before', () => {
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const { second, fraction, zone, separator } of times) {
          const text = `2026-11-22${separator}10:00:0${second}.${fraction}${zone}`;
          const offsetMinutes = { Z: 0, z: 0, '+01:00': 60, '-0230': -150 }[zone] ?? NaN;
          const utcMs = Date.UTC(2026, 10, 22, 10, 0, second) - offsetMinutes * 60_000;
          const micros = fraction.padEnd(6, '0').slice(0, 6);
          assert.equal(parseRouterTimestamp(text), `${new Date(utcMs).toISOString().slice(0, 19)}.${micros}Z`);
        }
        // Not a time, though its first seconds are the last ones read.
        assert.equal(parseRouterTimestamp('2026-11-22T10:00:00.12a4Z'), null);
        assert.equal(parseRouterTimestamp('2026-11-22T10:00:00.1234'), null);
      }),
      { numRuns: 500 },
    );
  });

  it('turns seconds into milliseconds exactly, to the digit', () => {
    // Exact where multiplying the parsed seconds by 1000 is not.
    assert.equal(secondsToMs('0.025501'), 25.501);
    assert.equal(0.025501 * 1000, 25.500999999999998);
    assert.equal(secondsToMs('0.000085'), 0.085);
    assert.equal(secondsToMs('12'), 12_000);
    assert.equal(secondsToMs('1.2'), 1200);
    assert.equal(secondsToMs('0.059468637'), 59.468637);
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,6}$/), fc.stringMatching(/^[0-9]{0,9}$/), (whole, fraction) => {
        const text = fraction ? `${whole}.${fraction}` : whole;
        const ms = /** @type {number} */ (secondsToMs(text));
        assert.ok(Math.abs(ms - Number(text) * 1000) <= 1e-9 * Number(text) * 1000 + 1e-9, `${text} -> ${ms}`);
      }),
      { numRuns: 2000 },
    );
    // Digit by digit, the same number as Number() of the text with its point shifted 3 places.
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,16}$/), fc.stringMatching(/^[0-9]{0,16}$/), (whole, fraction) => {
        const text = fraction ? `${whole}.${fraction}` : whole;
        const shifted = Number(`${whole}${fraction.padEnd(3, '0').slice(0, 3)}.${fraction.slice(3) || '0'}`);
        assert.equal(secondsToMs(text), shifted, text);
      }),
      { numRuns: 20_000 },
    );
    assert.equal(secondsToMs('1.5e-3'), 1.5);
    assert.equal(secondsToMs('.5'), undefined);
    assert.equal(secondsToMs('5.'), undefined);
    assert.equal(secondsToMs('1.2.3'), undefined);
    assert.equal(secondsToMs('-0.5'), undefined);
    assert.equal(secondsToMs('0.5s'), undefined);
    assert.equal(secondsToMs('-'), null);
  });
});

describe('normalizeId', () => {
  it('brings every id form to lower-case UUID', () => {
    assert.equal(normalizeId('B8FB3D83AE6A43CA5B91591AADDE8C06'), 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06');
    assert.equal(
      normalizeId('00-f57d0fbed79e4462702e941edbc834c3-702e941edbc834c3-01'),
      'f57d0fbe-d79e-4462-702e-941edbc834c3',
    );
    assert.equal(normalizeId(' 9365D216-623A-45CB-6EF6-EBA495C19FA8 '), '9365d216-623a-45cb-6ef6-eba495c19fa8');
    assert.equal(normalizeId('-'), null);
  });
});

describe('mapDocument', () => {
  const logsearch = {
    '@timestamp': '2025-09-18T05:32:10.748Z',
    '@source': { type: 'RTR' },
    '@cf': { app: 'myapp', app_id: '1ec90566-397f-4238-a452-ad4d246f73e4' },
    rtr: {
      timestamp: '2025-09-18T05:32:10.722911143Z',
      verb: 'GET',
      path: '/',
      status: 200,
      request_bytes_received: 0,
      body_bytes_sent: 323,
      vcap_request_id: 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06',
      response_time_ms: 26,
      gorouter_time_ms: 0.085,
      app: { id: '1ec90566-397f-4238-a452-ad4d246f73e4', index: 0 },
      extra: { x_correlation_id: '7D0A3C5E-0000-4000-8000-000000000001', x_cf_routererror: '-' },
    },
  };
  const options = {
    fields: fieldNamesFor('auto', {}),
    format: /** @type {const} */ ('auto'),
    correlationField: 'x_correlation_id',
  };

  it('maps logsearch fields and marks whole-ms response times', () => {
    const result = mapDocument(logsearch, options);
    assert.ok(result.ok);
    assert.equal(result.record.appName, 'myapp');
    assert.equal(result.record.responseTimeMs, 26);
    assert.equal(result.record.responseTimeResolutionMs, 1);
    assert.equal(result.record.correlationId, '7d0a3c5e-0000-4000-8000-000000000001');
    assert.equal(result.record.receivedAt, '2025-09-18T05:32:10.722911Z');
  });

  it('keeps only what the columns can hold: no app index past int4, no fractional or huge byte counts', () => {
    const withRtr = (/** @type {Record<string, unknown>} */ rtr) => ({
      ...logsearch,
      rtr: { ...logsearch.rtr, ...rtr },
    });
    for (const index of [2 ** 31, 1.5, -1]) {
      const result = mapDocument(withRtr({ app: { id: logsearch.rtr.app.id, index } }), options);
      assert.ok(result.ok);
      assert.equal(result.record.appIndex, null, `index ${index}`);
    }
    const largest = mapDocument(withRtr({ app: { index: 2 ** 31 - 1 } }), options);
    assert.ok(largest.ok);
    assert.equal(largest.record.appIndex, 2 ** 31 - 1);
    for (const bytes of [1.5, 2 ** 53]) {
      assert.deepEqual(mapDocument(withRtr({ body_bytes_sent: bytes }), options), {
        ok: false,
        reason: 'bad_bytes',
        lookedIn: ['@raw', 'rtr.*', 'message', '@message', 'log'],
      });
    }
    const line = record(MODERN.replace('app_index:"0"', 'app_index:"2147483648"'));
    assert.equal(line.appIndex, null);
    assert.equal(record(MODERN.replace('app_index:"0"', 'app_index:"2147483647"')).appIndex, 2 ** 31 - 1);
  });

  it('reads dotted keys and configurable field names', () => {
    const doc = {
      '@timestamp': 'x',
      'router.received': '2025-09-18T05:32:10Z',
      'router.response_time_ms': 12.5,
      'router.status': '201',
      '@cf.app': 'a',
    };
    const fields = fieldNamesFor('logsearch', {
      receivedAt: 'router.received',
      responseTimeMs: 'router.response_time_ms',
      status: 'router.status',
    });
    const result = mapDocument(doc, { fields, format: 'logsearch' });
    assert.ok(result.ok);
    assert.deepEqual(
      [
        result.record.responseTimeMs,
        result.record.status,
        result.record.appName,
        result.record.responseTimeResolutionMs,
      ],
      [12.5, 201, 'a', null],
    );
    assert.throws(() => fieldNamesFor('logsearch', { responseTime: 'x' }), {
      name: 'ConfigError',
      message: /ROUTER_LOG_FIELDS has unknown key responseTime/,
    });
  });

  it('parses a raw line in auto mode and takes the app name from the envelope', () => {
    const result = mapDocument({ '@timestamp': 'x', '@cf': { app: 'myapp' }, message: MODERN }, options);
    assert.ok(result.ok);
    assert.equal(result.record.appName, 'myapp');
    assert.equal(result.record.responseTimeMs, 25.501);
    assert.deepEqual(mapDocument({ '@cf': { app: 'x' } }, options), {
      ok: false,
      reason: 'unknown_format',
      lookedIn: ['@raw', 'message', '@message', 'log'],
    });
    assert.deepEqual(mapDocument({ message: 'x' }, { ...options, format: 'raw', fields: fieldNamesFor('raw', {}) }), {
      ok: false,
      reason: 'not_gorouter',
      lookedIn: ['message'],
    });
  });

  // Where pipelines keep the line: logsearch @raw (and @message when its RTR parse failed), ECS /
  // Filebeat / Logstash `message`, Fluent Bit / Docker `log` (with the newline Docker keeps).
  const envelope = { '@timestamp': '2025-09-18T05:32:10.748Z', '@cf': { app: 'myapp' } };
  const expected = record(MODERN, 'x_correlation_id');
  for (const [field, doc] of /** @type {Array<[string, object]>} */ ([
    ['@raw', { ...envelope, '@message': '200 GET / (25.501 ms)', '@raw': MODERN }],
    ['@message', { ...envelope, '@message': MODERN }],
    ['message', { ...envelope, message: MODERN }],
    ['log', { ...envelope, log: `${MODERN}\n`, stream: 'stdout' }],
    [
      'log',
      { ...envelope, message: 'shipped by fluent-bit', log: `2025-09-18T05:32:10.74+0000 [RTR/0] OUT ${MODERN}` },
    ],
  ])) {
    it(`auto finds the gorouter line in ${field} and says so`, () => {
      const result = mapDocument(doc, options);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.from, field);
      assert.deepEqual(result.record, { ...expected, appName: 'myapp' });
    });
  }

  it('auto prefers parsed rtr.* fields, then the line; each document on its own', () => {
    const parsed = mapDocument({ ...logsearch, log: MODERN }, options);
    assert.ok(parsed.ok);
    assert.equal(parsed.from, 'rtr.*');
    assert.equal(parsed.record.responseTimeMs, 26);
    // rtr.* that do not parse, but the line is there: the line.
    const broken = mapDocument({ ...logsearch, rtr: { ...logsearch.rtr, status: 'x' }, message: MODERN }, options);
    assert.ok(broken.ok);
    assert.equal(broken.from, 'message');
    // Neither: the rtr.* reason, and every field looked in.
    assert.deepEqual(mapDocument({ ...logsearch, rtr: { ...logsearch.rtr, status: 'x' } }, options), {
      ok: false,
      reason: 'bad_status',
      lookedIn: ['@raw', 'rtr.*', 'message', '@message', 'log'],
    });
    // A truncated line says truncated, whatever other text fields say.
    const cut = mapDocument({ ...envelope, '@message': '200 GET /', log: MODERN.slice(0, 60) }, options);
    assert.deepEqual(cut, { ok: false, reason: 'truncated', lookedIn: ['@raw', 'message', '@message', 'log'] });
  });
});

describe('properties (fast-check)', () => {
  it('never throws on arbitrary strings and yields only sane records', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => sane(parseGorouterLine(s))),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.anything(), (v) => sane(parseGorouterLine(/** @type {any} */ (v)))),
      { numRuns: 1000 },
    );
  });

  it('never throws on mutated real lines (cut, spliced, characters replaced)', () => {
    const line = fc.constantFrom(MODERN, TRACEPARENT, LEGACY);
    const mutated = fc.tuple(line, fc.nat(), fc.nat(), fc.string({ maxLength: 20 })).map(([l, a, b, insert]) => {
      const i = a % (l.length + 1);
      const j = Math.min(l.length, i + (b % 30));
      return l.slice(0, i) + insert + l.slice(j);
    });
    fc.assert(
      fc.property(mutated, (s) => sane(parseGorouterLine(s))),
      { numRuns: 10000 },
    );
    fc.assert(
      fc.property(line, fc.nat(), (l, n) => sane(parseGorouterLine(l.slice(0, n % (l.length + 1))))),
      { numRuns: 2000 },
    );
  });

  it('never throws on arbitrary documents', () => {
    const options = { fields: fieldNamesFor('auto', {}), format: /** @type {const} */ ('auto') };
    // Found by this property once: an object where a number belongs, whose toString is not a function.
    assert.deepEqual(
      mapDocument({ rtr: { timestamp: 0, response_time_ms: { toString: 0 }, status: false } }, options),
      { ok: false, reason: 'bad_duration', lookedIn: ['@raw', 'rtr.*', 'message', '@message', 'log'] },
    );
    // Values whose conversion to a primitive throws or lies, beside everything else.
    const hostile = fc.record({ toString: fc.anything(), valueOf: fc.anything() });
    const anyValue = fc.oneof(fc.anything({ withObjectString: true, withNullPrototype: true }), hostile);
    fc.assert(
      fc.property(fc.anything({ withObjectString: true }), (doc) => sane(mapDocument(doc, options))),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc.record({
          rtr: fc.record({
            timestamp: fc.oneof(fc.string(), fc.integer(), anyValue),
            response_time_ms: anyValue,
            status: anyValue,
            app: fc.record({ id: anyValue, index: anyValue }),
            extra: fc.dictionary(fc.constantFrom('x_correlation_id', 'instance_id', 'x_b3_traceid'), anyValue),
          }),
        }),
        (doc) => sane(mapDocument(doc, options)),
      ),
      { numRuns: 5000 },
    );
  });
});
