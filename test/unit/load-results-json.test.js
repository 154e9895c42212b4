// The JSON-lines result formats (k6, vegeta, the Locust listener's), Gatling's simulation.log
// (binary since 3.13, text before) and format detection, from literal files, edge cases included.
// k6 is AGPL and not run here: its lines follow the shapes k6's documentation gives for --out json.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatlingLog, readAll } from '../support/load-results.js';

describe('k6 --out json (shapes from k6 documentation)', () => {
  it('takes the http_req_duration points among other metrics, with ids from metadata or tags', async () => {
    const lines = [
      { type: 'Metric', data: { type: 'gauge', contains: 'default', tainted: null, thresholds: [] }, metric: 'vus' },
      { type: 'Point', data: { time: '2017-05-09T14:34:45.625742514+02:00', value: 5, tags: null }, metric: 'vus' },
      {
        type: 'Metric',
        data: { type: 'trend', contains: 'time', thresholds: ['avg<1000'] },
        metric: 'http_req_duration',
      },
      {
        type: 'Point',
        data: {
          time: '2017-05-09T14:34:45.239531499+02:00',
          value: 459.865729,
          tags: {
            group: '::my group::json',
            method: 'GET',
            status: '200',
            url: 'https://x.test/',
            expected_response: 'true',
          },
          metadata: { trace_id: '6a9b91dd3def4c47ac61c163db137a8a' },
        },
        metric: 'http_req_duration',
      },
      { type: 'Point', data: { time: '2017-05-09T14:34:45.24+02:00', value: 1, tags: {} }, metric: 'http_reqs' },
      {
        type: 'Point',
        data: {
          time: '2017-05-09T14:34:46.000+02:00',
          value: 12.5,
          tags: { method: 'POST', status: '503', url: 'https://x.test/p', correlation_id: 'AB-1' },
        },
        metric: 'http_req_duration',
      },
    ];
    const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"Point","data":{"ti`;
    const { format, records, skipped } = await readAll(text);
    assert.equal(format, 'k6-json');
    assert.deepEqual([...skipped], [['bad_json', 1]], 'a line cut at the end of the file');
    const [ok, failed] = records;
    assert.equal(ok.correlationId, '6a9b91dd-3def-4c47-ac61-c163db137a8a');
    // 14:34:45.239531499+02:00 minus 459.865729 ms
    assert.ok(Math.abs(ok.startedAtMs - (Date.parse('2017-05-09T12:34:45.239Z') + 0.531499 - 459.865729)) < 1e-6);
    assert.deepEqual([ok.status, ok.error, ok.method, ok.url], [200, null, 'GET', 'https://x.test/']);
    assert.deepEqual([failed.correlationId, failed.status, failed.error], ['ab-1', 503, 'status 503']);
  });
});

describe('vegeta encode --to json', () => {
  it('reads ns latency and RFC 3339 ns times, drops "no targets to attack" results', async () => {
    const lines = [
      '{"attack":"","seq":0,"code":200,"timestamp":"2026-11-25T14:43:38.482179524Z","latency":6266972,"bytes_out":0,' +
        '"bytes_in":2,"error":"","body":"b2s=","method":"GET","url":"http://h/?paasmon_id=0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b","headers":{}}',
      '{"attack":"","seq":1,"code":503,"timestamp":"2026-11-25T14:43:38.5Z","latency":1000,"bytes_out":0,' +
        '"bytes_in":2,"error":"503 Service Unavailable","body":"b2s=","method":"GET","url":"http://h/","headers":{}}',
      '{"attack":"","seq":2,"code":0,"timestamp":"2026-11-25T14:43:38.6Z","latency":0,"bytes_out":0,' +
        '"bytes_in":0,"error":"no targets to attack","body":null,"method":"","url":"","headers":null}',
    ];
    const { format, records } = await readAll(lines.join('\n'));
    assert.equal(format, 'vegeta');
    assert.deepEqual(
      records.map((r) => [r.startedAt.slice(0, 25), r.durationMs, r.status, r.error, r.bytes]),
      [
        // .482179524: microseconds as far as a double of epoch ms holds them (a quarter of one)
        ['2026-11-25T14:43:38.48217', 6.266972, 200, null, 2],
        ['2026-11-25T14:43:38.50000', 0.001, 503, '503 Service Unavailable', 2],
      ],
    );
    assert.equal(records[0].correlationId, '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b');
  });
});

describe('Locust listener lines', () => {
  it('reads epoch-second starts, ms durations, and failures with and without a response', async () => {
    const lines = [
      '{"start_time": 1795617807.56904, "response_time": 22.171318999994583, "request_type": "GET", "name": "GET /", ' +
        '"url": "http://h/", "status": 200, "response_length": 2, "exception": null, ' +
        '"correlation_id": "f1db8953-1b7f-43c5-8716-064ffc0fd69c"}',
      '{"start_time": 1795617807.629653, "response_time": 8.03, "request_type": "GET", "name": "GET /", "url": "http://h/", ' +
        '"status": 503, "response_length": 2, "exception": "HTTPError(\'503 Server Error: Service Unavailable for url: GET /\')", ' +
        '"correlation_id": "582567d7-3e53-4206-9bc1-e7c6028cdbcb"}',
      '{"start_time": 1795617807.7, "response_time": 1.5, "request_type": "GET", "name": "GET /", "url": "http://h/", ' +
        '"status": 0, "response_length": 0, "exception": "ConnectionRefusedError(111, \'Connection refused\')", ' +
        '"correlation_id": null}',
    ];
    const { format, records } = await readAll(lines.join('\n'));
    assert.equal(format, 'locust');
    assert.deepEqual(
      records.map((r) => [r.startedAt, r.status, r.error?.slice(0, 12) ?? null]),
      [
        ['2026-11-25T14:43:27.569040Z', 200, null],
        ['2026-11-25T14:43:27.629653Z', 503, "HTTPError('5"],
        ['2026-11-25T14:43:27.700000Z', 0, 'refused'],
      ],
    );
    assert.equal(records[0].durationMs, 22.171318999994583);
    assert.match(records[2].correlationId, /^row-3-/);
  });
});

describe('Gatling simulation.log', () => {
  it('reads the binary log of 3.13 in any chunking, a record cut at the end one skip', async () => {
    const log = gatlingLog();
    const cut = Buffer.concat([log, Buffer.from([1, 0, 0, 0, 0, 0xff, 0xff])]);
    for (const chunk of [1, 7, 1 << 16]) {
      const { format, records, skipped } = await readAll(cut, {}, chunk);
      assert.equal(format, 'gatling');
      assert.deepEqual(
        records.map((r) => [r.startedAt, r.durationMs, r.status, r.error, r.method]),
        [
          ['2026-11-25T14:41:43.257000Z', 38, 200, null, 'GET'],
          ['2026-11-25T14:41:43.267000Z', 7, 503, 'status.find.in([200, 209], 304), found 503', 'GET'],
        ],
      );
      assert.equal(records[0].correlationId, '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b');
      assert.deepEqual([...skipped], [['truncated', 1]]);
    }
  });

  it('reads the text log of Gatling before 3.13, a line cut mid-way one skip', async () => {
    const text = [
      'RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1609459200000\t \t3.9.5',
      'USER\tUsers\tSTART\t1609459200123\t1609459200123',
      'REQUEST\t\trequest_1\t1609459200200\t1609459200350\tOK\t ',
      'REQUEST\tgroup a,group b\tGET /x\t1609459200400\t1609459200410\tKO\tj.n.ConnectException: Connection refused',
      'REQUEST\t\trequest_2\t160945920',
    ].join('\n');
    const { format, records, skipped } = await readAll(text);
    assert.equal(format, 'gatling');
    assert.deepEqual(
      records.map((r) => [r.startedAtMs, r.durationMs, r.status, r.error, r.url]),
      [
        [1609459200200, 150, 200, null, 'request_1'],
        [1609459200400, 10, 0, 'refused', 'GET /x'],
      ],
    );
    assert.deepEqual([...skipped], [['truncated', 1]]);
  });
});
