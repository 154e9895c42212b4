// Line shapes real routers and `cf logs` captures produce that paasmon once dropped or misread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';
import { correlationIdOf } from '../../collector/sources/gorouter/correlation-ids.js';
import { mapDocument, fieldNamesFor } from '../../collector/sources/router-logs/documents.js';
import { EXPECTED_SKIPS } from '../../collector/pipeline/ingest.js';
import { statusClass } from '../../core/ids.js';
import { routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { logMessage, rtrEnvelope } from '../support/syslog-agent-standin.js';

const MODERN =
  'myapp.apps.example.com - [2025-09-18T05:32:10.722911143Z] "GET / HTTP/2.0" 200 0 323 "-" "Mozilla/5.0" "10.0.136.0:26678" "10.32.2.6:61225" x_forwarded_for:"35.144.46.133, 10.0.136.0" x_forwarded_proto:"https" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" response_time:0.025501 gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0" instance_id:"57341afc-6d72-4e2d-4b80-8609" x_cf_routererror:"-"';

/** A client that gave up: gorouter's WriteDashOrIntValue writes the status 0 as `"-"`. */
const NOTHING_WRITTEN =
  'myapp.apps.example.com - [2025-09-18T05:32:40.000000000Z] "GET /slow HTTP/1.1" "-" 0 0 "-" "k6/0.49.0" "10.0.136.0:26678" "10.32.2.6:61225" x_forwarded_for:"35.144.46.133" x_forwarded_proto:"https" vcap_request_id:"0b7e4c1a-3f2d-4b8e-9a6c-1d2e3f4a5b6c" response_time:30.001234 gorouter_time:0.000120 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"1" instance_id:"57341afc-6d72-4e2d-4b80-8609" x_cf_routererror:"-"';

/** A router of 2019-2021: 64-bit B3 trace and span ids. */
const B3_64 =
  'myapp.apps.example.com - [2020-05-04T10:11:12.131415161Z] "GET /hello HTTP/1.1" 200 0 5 "-" "curl/7.68.0" "10.0.1.2:50000" "10.0.2.3:61001" x_forwarded_for:"10.0.1.2" x_forwarded_proto:"http" vcap_request_id:"4a1e0c2b-9d6f-4b3a-6c7d-8e9f0a1b2c3d" response_time:0.004321 gorouter_time:0.000200 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0" x_b3_traceid:"463AC35C9F6413AD" x_b3_spanid:"463ac35c9f6413ad" x_b3_parentspanid:"-" b3:"463ac35c9f6413ad-463ac35c9f6413ad"';

/** @param {string} line */
const record = (line) => {
  const result = parseGorouterLine(line);
  assert.ok(result.ok, `expected a record, got ${JSON.stringify(result)}`);
  return result.record;
};

describe('gorouter lines as routers write them', () => {
  it('stores a request with `"-"` as its status (nothing written to the client) with a null status and its times', () => {
    const r = record(NOTHING_WRITTEN);
    assert.equal(r.status, null);
    assert.equal(statusClass(r.status), 'none');
    assert.equal(r.receivedAt, '2025-09-18T05:32:40.000000Z');
    assert.equal(r.responseTimeMs, 30001.234);
    assert.equal(r.gorouterTimeMs, 0.12);
    assert.equal(r.path, '/slow');
    assert.equal(r.appIndex, 1);
    assert.equal(r.correlationId, '0b7e4c1a-3f2d-4b8e-9a6c-1d2e3f4a5b6c');
  });

  it('still refuses a status that is no number at all', () => {
    assert.deepEqual(parseGorouterLine(MODERN.replace('" 200 0 323', '" "abc" 0 323')), {
      ok: false,
      reason: 'bad_status',
    });
  });

  it('keeps the path and any RFC 9110 token method (VERSION-CONTROL, lower-case get, M-SEARCH)', () => {
    for (const method of ['VERSION-CONTROL', 'get', 'M-SEARCH', 'X_CUSTOM.1']) {
      const r = record(MODERN.replace('"GET / HTTP/2.0"', `"${method} /repo/a%20b?x=1 HTTP/1.1"`));
      assert.equal(r.method, method);
      assert.equal(r.path, '/repo/a%20b?x=1');
    }
  });

  it('keeps the path but no method when the method is no token', () => {
    const r = record(MODERN.replace('"GET / HTTP/2.0"', '"GE(T /x HTTP/1.1"'));
    assert.equal(r.method, null);
    assert.equal(r.path, '/x');
  });

  it('keeps a 16-hex B3 trace id, left-padded to 32 hex; it correlates with no 128-bit id', () => {
    const r = record(B3_64);
    assert.equal(r.traceId, '0000000000000000463ac35c9f6413ad');
    // vcap_request_id comes first; without it, the 64-bit id is kept as it was logged.
    assert.equal(r.correlationId, '4a1e0c2b-9d6f-4b3a-6c7d-8e9f0a1b2c3d');
    const onlyB3 = (/** @type {string} */ name) => (name === 'x_b3_traceid' ? '463AC35C9F6413AD' : undefined);
    assert.equal(correlationIdOf(onlyB3), '463ac35c9f6413ad');
    const b3Only = record(B3_64.replace('x_b3_traceid:"463AC35C9F6413AD" ', ''));
    assert.equal(b3Only.traceId, '0000000000000000463ac35c9f6413ad');
  });

  it('reads a 16-hex trace id from a logsearch document too', () => {
    const result = mapDocument(
      {
        '@timestamp': '2020-05-04T10:11:12.140Z',
        '@cf': { app: 'myapp', app_id: '1ec90566-397f-4238-a452-ad4d246f73e4' },
        '@source': { type: 'RTR' },
        rtr: {
          timestamp: '2020-05-04T10:11:12.131415161Z',
          verb: 'GET',
          path: '/hello',
          status: 200,
          response_time_ms: 4,
          extra: { x_b3_traceid: '463ac35c9f6413ad' },
        },
      },
      { fields: fieldNamesFor('auto', {}), format: 'auto', correlationField: 'x_correlation_id' },
    );
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.record.traceId, '0000000000000000463ac35c9f6413ad');
  });
});

describe('`cf logs` captures', () => {
  it('takes [App/0] in mixed case (older CLIs) as another source, not as a broken line', () => {
    for (const line of [
      '2016-06-14T13:44:38.14-0700 [App/0]      OUT listening on 8080',
      '2016-06-14T13:44:38.14-0700 [App/0]      ERR',
      '2016-06-14T13:44:38.14-0700 [Api/0]      OUT Updated app with guid 79cc58aa',
    ])
      assert.deepEqual(parseGorouterLine(line), { ok: false, reason: 'not_rtr' }, line);
  });

  it('reads an RTR line whatever the case of its tag', () => {
    assert.equal(record(`2016-06-14T13:44:38.14-0700 [Rtr/0]      OUT ${MODERN}`).status, 200);
  });

  it('takes an empty [RTR/n] OUT line as an empty router message, an expected skip', () => {
    for (const line of [
      '   2025-09-18T05:32:10.74+0000 [RTR/1] OUT ',
      '   2025-09-18T05:32:10.74+0000 [RTR/1] OUT',
      '2025-09-18T05:32:10.74+0000 [RTR/12] OUT   \r\n',
    ])
      assert.deepEqual(parseGorouterLine(line), { ok: false, reason: 'empty_rtr' }, JSON.stringify(line));
    assert.ok(EXPECTED_SKIPS.lines.includes('empty_rtr'));
    assert.ok(EXPECTED_SKIPS.documents.includes('empty_rtr'));
  });

  it('drops an empty RTR message from a syslog drain as empty_rtr, like other sources (not a bad line)', () => {
    const message = logMessage(rtrEnvelope('', { appGuid: '1ec90566-397f-4238-a452-ad4d246f73e4', appName: 'myapp' }));
    assert.deepEqual(routerRequestFromSyslog(message.toString(), {}), {
      ok: false,
      reason: 'empty_rtr',
      ignored: true,
    });
  });
});
