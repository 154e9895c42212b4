// The CSV result formats (JMeter JTL, hey, vegeta, k6) read from literal files, edge cases included.
// k6 is AGPL and not run here: its rows follow the shapes k6's documentation gives for --out csv.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAll } from '../support/load-results.js';

const JTL_HEADER =
  'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,' +
  'sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect,"paasmon_id"';

describe('JMeter JTL', () => {
  it('reads quoted labels holding commas and newlines, the id column, and failures', async () => {
    const jtl = [
      JTL_HEADER,
      '1795618318544,38,GET /,200,OK,users 1-2,,true,,124,174,2,2,http://127.0.0.1:55894/,34,0,21,' +
        'F4B2DE41-4841-459A-97D8-B052996BD1D2',
      '1795618318550,12,"GET /a, then\nb",503,Service Unavailable,users 1-1,,false,,90,174,2,2,' +
        'http://127.0.0.1:55894/a,10,0,0,6a9b91dd-3def-4c47-ac61-c163db137a8a',
      '1795618318560,1004,POST /x,"Non HTTP response code: org.apache.http.conn.HttpHostConnectException",' +
        '"Non HTTP response message: Connect to 127.0.0.1:1 failed: Connection refused",users 1-1,text,false,,0,0,1,1,' +
        'http://127.0.0.1:1/x,0,0,1004,0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
      '1795618318570,7,GET /,200,OK,users 1-1,,false,Assertion failed: body,2,174,1,1,http://h/,5,0,0,' +
        '1b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
      'not,a,row',
    ].join('\n');
    const { format, records, skipped, examples } = await readAll(jtl);
    assert.equal(format, 'jmeter');
    assert.equal(records.length, 4);
    const [ok, unavailable, refused, asserted] = records;
    assert.equal(ok.correlationId, 'f4b2de41-4841-459a-97d8-b052996bd1d2');
    assert.equal(ok.startedAt, '2026-11-25T14:51:58.544000Z');
    assert.equal(ok.durationMs, 38);
    assert.equal(ok.error, null);
    assert.equal(ok.bytes, 124);
    assert.equal(ok.method, 'GET');
    assert.equal(unavailable.url, 'http://127.0.0.1:55894/a');
    assert.deepEqual([unavailable.status, unavailable.error], [503, 'Service Unavailable']);
    assert.deepEqual([refused.status, refused.error], [0, 'refused']);
    assert.deepEqual([asserted.status, asserted.error], [200, 'Assertion failed: body']);
    assert.deepEqual([...skipped], [['short_row', 1]]);
    assert.match(examples.get('short_row'), /^line 7: not,a,row/);
  });

  it('counts a quoted field left open at the end of a cut file as one unreadable line', async () => {
    const jtl = `${JTL_HEADER}\n1795618318544,38,GET /,200,OK,u,,true,,1,1,1,1,http://h/,1,0,0,x\n1795618318545,3,"GET /cut`;
    const { records, skipped } = await readAll(jtl);
    assert.equal(records.length, 1);
    assert.deepEqual([...skipped], [['csv_framing', 1]]);
  });
});

describe('hey -o csv', () => {
  const csv =
    'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n' +
    '0.0279,0.0002,0.0000,0.0002,0.0234,0.0040,200,0.0011\n' +
    '0.0325,0.0025,0.0000,0.0000,0.0271,0.0027,503,1.5005\n';

  it('places the relative offsets after --started-at, times in seconds to ms', async () => {
    const startedAtMs = Date.parse('2026-11-25T10:00:00Z');
    const { format, records } = await readAll(csv, { startedAtMs });
    assert.equal(format, 'hey');
    assert.deepEqual(
      records.map((r) => [r.startedAt, r.durationMs, r.status, r.error]),
      [
        ['2026-11-25T10:00:00.001100Z', 27.9, 200, null],
        ['2026-11-25T10:00:01.500500Z', 32.5, 503, 'status 503'],
      ],
    );
    assert.match(records[0].correlationId, /^row-1-[0-9a-f]{16}$/);
    const again = await readAll(csv, { startedAtMs });
    assert.deepEqual(
      again.records.map((r) => r.correlationId),
      records.map((r) => r.correlationId),
      'the same file gives the same keys',
    );
  });

  it('leaves the requests sent before `from` out (a warm-up), counted, the others keeping their keys', async () => {
    const startedAtMs = Date.parse('2026-11-25T10:00:00Z');
    const all = await readAll(csv, { startedAtMs });
    const warm = await readAll(csv, { startedAtMs, from: startedAtMs + 1000 });
    assert.equal(warm.warmup, 1);
    assert.equal(all.warmup, 0);
    assert.deepEqual(warm.records, all.records.slice(1));
    const none = await readAll(csv, { startedAtMs, from: startedAtMs + 2000 });
    assert.deepEqual([none.records.length, none.warmup], [0, 2]);
  });

  it('refuses offsets without an absolute start', async () => {
    await assert.rejects(readAll(csv), /hey's offsets are relative to its start: give --started-at/);
  });
});

describe('vegeta encode --to csv', () => {
  it('reads ns times, drops the results of an exhausted -lazy attack, and takes the id from the URL', async () => {
    const csv =
      '1795620993369898236,200,9640871,0,2,,b2s=,,0,GET,http://127.0.0.1:1/?paasmon_id=88409985-b8a0-4110-93a9-6a1399a155c7,\n' +
      '1795620993370000000,503,1000000,0,2,503 Service Unavailable,b2s=,,1,GET,http://127.0.0.1:1/,\n' +
      '1795620993371000000,0,5000000000,0,0,"Get ""http://127.0.0.1:1/"": dial tcp: connect: connection refused",,,2,GET,http://127.0.0.1:1/,\n' +
      '1795620993372000000,0,0,0,0,no targets to attack,,,3,,,\n';
    const { format, records } = await readAll(csv);
    assert.equal(format, 'vegeta');
    assert.deepEqual(
      records.map((r) => [r.startedAt, r.durationMs, r.status, r.error]),
      [
        ['2026-11-25T15:36:33.369898Z', 9.640871, 200, null],
        ['2026-11-25T15:36:33.370000Z', 1, 503, '503 Service Unavailable'],
        ['2026-11-25T15:36:33.371000Z', 5000, 0, 'refused'],
      ],
    );
    assert.equal(records[0].correlationId, '88409985-b8a0-4110-93a9-6a1399a155c7');
    assert.match(records[2].correlationId, /^row-3-/);
  });
});

describe('k6 --out csv (shapes from k6 documentation)', () => {
  it('takes only http_req_duration rows, the start as the sample time minus the duration', async () => {
    const csv =
      'metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,subproto,' +
      'tls_version,url,extra_tags\n' +
      'http_reqs,1595325560,1.000000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,\n' +
      'http_req_duration,1595325560,221.899000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,' +
      'trace_id=6a9b91dd3def4c47ac61c163db137a8a&expected_response=true\n' +
      'http_req_blocked,1595325560,0.012000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,\n' +
      'http_req_duration,1595325561,10.5,,,,,GET,http://test.k6.io/x,HTTP/1.1,default,503,,,http://test.k6.io/x,' +
      'expected_response=false\n' +
      'vus,1595325561,5.000000,,,,,,,,,,,,,\n';
    const { format, records, skipped } = await readAll(csv);
    assert.equal(format, 'k6-csv');
    assert.equal(skipped.size, 0);
    assert.deepEqual(
      records.map((r) => [r.startedAtMs, r.durationMs, r.status, r.error, r.correlationId, r.tool]),
      [
        [1595325560000 - 221.899, 221.899, 200, null, '6a9b91dd-3def-4c47-ac61-c163db137a8a', 'k6'],
        [1595325561000 - 10.5, 10.5, 503, 'status 503', records[1].correlationId, 'k6'],
      ],
    );
  });
});
