// The load-result tests' reader, and one small well-formed result file of every format and shape of
// the import format list, keyed `<format> <variant>`: the detection and reason-code tests go through
// the whole list with them, so a shape added to the list without a sample here fails those tests.
import { Readable } from 'node:stream';
import { readLoadResults } from '../../collector/sources/load-results/index.js';

/**
 * Reads `content` (fed in chunks of `chunkBytes`) to its end: its format, shape, every request, the
 * skips by reason with the first example of each, and the requests left out before `options.from`.
 * @param {string | Buffer} content
 * @param {import('../../collector/sources/load-results/index.js').ReadOptions} [options]
 * @param {number} [chunkBytes]
 */
export async function readAll(content, options = {}, chunkBytes = 1 << 16) {
  const bytes = Buffer.from(content);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += chunkBytes) chunks.push(bytes.subarray(at, at + chunkBytes));
  const { pages, ...read } = await readLoadResults(Readable.from(chunks), options);
  /** @type {any[]} */
  const records = [];
  /** @type {Map<string, number>} */
  const skipped = new Map();
  /** @type {Map<string, any>} the text of each, typed loosely for assert.match */
  const examples = new Map();
  let warmup = 0;
  for await (const page of pages) {
    records.push(...page.records);
    warmup += page.warmup;
    for (const [reason, n] of page.skipped) skipped.set(reason, (skipped.get(reason) ?? 0) + n);
    for (const [reason, text] of page.examples) if (!examples.has(reason)) examples.set(reason, text);
  }
  return { ...read, records, skipped, examples, warmup };
}

const ID = '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b';
const IDS = [ID, ID.replace('0b', '1b')];

const JTL_NAMES = [
  'timeStamp',
  'elapsed',
  'label',
  'responseCode',
  'responseMessage',
  'threadName',
  'dataType',
  'success',
  'failureMessage',
  'bytes',
  'sentBytes',
  'grpThreads',
  'allThreads',
  'URL',
  'Latency',
  'IdleTime',
  'Connect',
  '"paasmon_id"',
];
const JTL_ROWS = [
  ['1795618318544', '38', 'GET /', '200', 'OK', 'users 1-2', '', 'true', '', '124', '174', '2', '2'],
  ['1795618318550', '12', 'GET /a', '503', 'Service Unavailable', 'users 1-1', '', 'false', '', '90', '174', '2', '2'],
].map((row, i) => [...row, ['http://127.0.0.1:55894/', 'http://127.0.0.1:55894/a'][i], '10', '0', '0', IDS[i]]);

/** A JTL of JMeter's default columns (and the paasmon_id variable) with `delimiter`. @param {string} delimiter */
export const jtl = (delimiter) => [JTL_NAMES, ...JTL_ROWS].map((row) => `${row.join(delimiter)}\n`).join('');

/** An XML JTL as JMeter 5.6.3 writes it (XStream doubles the `_` of a variable's name). */
export const XML_JTL = `<?xml version="1.0" encoding="UTF-8"?>
<testResults version="1.2">
<httpSample t="38" it="0" lt="34" ct="21" ts="1795618318544" s="true" lb="GET /" rc="200" rm="OK" tn="users 1-2" dt="text" by="124" sby="174" ng="2" na="2" paasmon__id="${IDS[0]}">
  <java.net.URL>http://127.0.0.1:55894/</java.net.URL>
</httpSample>
<httpSample t="12" it="0" lt="10" ct="0" ts="1795618318550" s="false" lb="GET /a" rc="503" rm="Service Unavailable" tn="users 1-1" dt="text" by="90" sby="174" ng="2" na="2" paasmon__id="${IDS[1]}">
  <java.net.URL>http://127.0.0.1:55894/a</java.net.URL>
</httpSample>

</testResults>
`;

/** Gatling 3.13's binary log records, written as its LogFileDataWriter does (big-endian). */
export function gatlingLog() {
  const parts = [];
  const int32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    parts.push(b);
  };
  const byte = (n) => parts.push(Buffer.from([n]));
  const string = (s) => {
    int32(s.length);
    if (s.length) parts.push(Buffer.from(s, 'latin1'), Buffer.from([0]));
  };
  const cached = (k, s) => (k > 0 ? (int32(k), string(s)) : int32(k));
  byte(0);
  string('3.13.5');
  string('LiveSimulation');
  const start = Buffer.alloc(8);
  start.writeBigInt64BE(BigInt(Date.parse('2026-11-25T14:41:43.247Z')));
  parts.push(start);
  string('');
  int32(1);
  string('live');
  int32(0);
  (byte(2), int32(0), byte(1), int32(5));
  const requestRecord = (first, start, end, ok, message) => {
    byte(1);
    int32(0);
    if (first) cached(1, 'GET / 0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b');
    else cached(-1);
    int32(start);
    int32(end);
    byte(ok ? 1 : 0);
    if (message) cached(2, message);
    else int32(0);
  };
  requestRecord(true, 10, 48, true, '');
  requestRecord(false, 20, 27, false, 'status.find.in([200, 209], 304), found 503');
  (byte(4), cached(-2), int32(30));
  const whole = Buffer.concat(parts);
  return whole;
}

/** @type {Record<string, string | Buffer>} */
export const SAMPLES = {
  'k6-json json':
    '{"type":"Metric","data":{"type":"trend","contains":"time"},"metric":"http_req_duration"}\n' +
    '{"type":"Point","data":{"time":"2017-05-09T14:34:45.239531499+02:00","value":459.865729,' +
    '"tags":{"method":"GET","status":"200","url":"https://test.k6.io/"}},"metric":"http_req_duration"}\n',
  'k6-csv csv':
    'metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,subproto,' +
    'tls_version,url,extra_tags\n' +
    'http_req_duration,1595325560,221.899000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,\n',
  'jmeter csv': jtl(','),
  'jmeter tab-delimited': jtl('\t'),
  'jmeter xml': XML_JTL,
  'gatling text':
    'RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1609459200000\t \t3.9.5\n' +
    'REQUEST\t\trequest_1\t1609459200200\t1609459200350\tOK\t \n',
  'gatling binary': gatlingLog(),
  'locust json':
    '{"start_time": 1795617807.56904, "response_time": 22.17, "request_type": "GET", "name": "GET /", ' +
    `"url": "http://h/", "status": 200, "response_length": 2, "exception": null, "correlation_id": "${ID}"}\n`,
  'hey csv':
    'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset\n' +
    '0.0279,0.0002,0.0000,0.0002,0.0234,0.0040,200,0.0011\n',
  'vegeta csv': '1795620993369898236,200,9640871,0,2,,b2s=,,0,GET,http://127.0.0.1:1/,\n',
  'vegeta json':
    '{"attack":"","seq":0,"code":200,"timestamp":"2026-11-25T14:43:38.482179524Z","latency":6266972,' +
    '"bytes_out":0,"bytes_in":2,"error":"","body":"b2s=","method":"GET","url":"http://h/","headers":{}}\n',
};
