import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReadBody, routerRequestFromEnvelope } from '../../collector/sources/log-cache/envelopes.js';

const APP = '1ec90566-397f-4238-a452-ad4d246f73e4';
const LINE =
  'myapp.apps.example.com - [2025-09-18T05:32:10.722911143Z] "GET / HTTP/2.0" 200 0 323 "-" "Mozilla/5.0" "10.0.136.0:26678" "10.32.2.6:61225" x_forwarded_for:"35.144.46.133" x_forwarded_proto:"https" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" response_time:0.025501 gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0" x_cf_routererror:"-"';
const payload = Buffer.from(LINE).toString('base64');

describe('Log Cache envelopes with deprecated_tags (older agents)', () => {
  it('reads source_type and source_id from deprecated_tags values ({"text": ...}) when tags lack them', () => {
    const body = {
      envelopes: {
        batch: [
          {
            timestamp: '1758173530748000000',
            instance_id: '0',
            deprecated_tags: {
              source_type: { text: 'RTR' },
              source_id: { text: APP },
              app_name: { text: 'myapp' },
              origin: { text: 'gorouter' },
              port: { integer: '8080' },
              weight: { decimal: 0.5 },
            },
            log: { payload, type: 'OUT' },
          },
        ],
      },
    };
    const parsed = parseReadBody(body);
    assert.ok(parsed);
    assert.equal(parsed.invalid, 0);
    const [envelope] = parsed.envelopes;
    assert.equal(envelope.sourceId, APP);
    assert.deepEqual(envelope.tags, {
      source_type: 'RTR',
      source_id: APP,
      app_name: 'myapp',
      origin: 'gorouter',
      port: '8080',
      weight: '0.5',
    });
    const result = routerRequestFromEnvelope(envelope, {});
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.record.appGuid, APP);
    assert.equal(result.record.appName, 'myapp');
    assert.equal(result.record.responseTimeMs, 25.501);
  });

  it('lets tags take precedence over deprecated_tags, as the Log Cache CLI does', () => {
    const parsed = parseReadBody({
      envelopes: {
        batch: [
          {
            timestamp: '1758173530748000000',
            source_id: APP,
            tags: { source_type: 'APP/PROC/WEB' },
            deprecated_tags: { source_type: { text: 'RTR' }, job: { text: 'router' } },
            log: { payload, type: 'OUT' },
          },
        ],
      },
    });
    assert.ok(parsed);
    assert.deepEqual(parsed.envelopes[0].tags, { source_type: 'APP/PROC/WEB', job: 'router' });
    assert.deepEqual(routerRequestFromEnvelope(parsed.envelopes[0], {}), {
      ok: false,
      reason: 'not_rtr',
      ignored: true,
    });
  });

  it('still counts an envelope with no source id anywhere as invalid', () => {
    const parsed = parseReadBody({
      envelopes: { batch: [{ timestamp: '1', deprecated_tags: { source_type: { text: 'RTR' } } }] },
    });
    assert.deepEqual(parsed, { envelopes: [], invalid: 1 });
  });

  it('takes an RTR envelope with an empty payload as an empty router message, ignored (no request, no loss)', () => {
    const parsed = parseReadBody({
      envelopes: {
        batch: [{ timestamp: '1', source_id: APP, tags: { source_type: 'RTR' }, log: { payload: '', type: 'OUT' } }],
      },
    });
    assert.ok(parsed);
    assert.deepEqual(routerRequestFromEnvelope(parsed.envelopes[0], {}), {
      ok: false,
      reason: 'empty_rtr',
      ignored: true,
    });
  });
});
