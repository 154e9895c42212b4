// Generated load-tool result files for the import benches: a JMeter JTL as JMeter writes it by
// default (CSV with its header, the correlation id as the last, quoted sample variable) or a hey CSV.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';

export const START = Date.parse('2026-11-21T00:00:00Z');
export const SPAN = 3600_000;
const JTL_HEADER =
  'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,' +
  'sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect,"paasmon_id"';
const HEY_HEADER = 'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset';

/** Writes `lines` (a generator of strings) to `file`, minding back-pressure. @param {string} file */
export async function writeLines(file, /** @type {Iterable<string>} */ lines) {
  const out = fs.createWriteStream(file);
  for (const line of lines) if (!out.write(`${line}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** `n` requests over an hour, one in 50 a 503. @param {number} n @param {'jmeter' | 'hey' | string} format */
export function* resultLines(n, format) {
  yield format === 'hey' ? HEY_HEADER : JTL_HEADER;
  for (let i = 0; i < n; i++) {
    const elapsed = 5 + (i % 37);
    const failed = i % 50 === 7;
    if (format === 'hey') {
      const offset = ((i / n) * SPAN) / 1000;
      const status = failed ? 503 : 200;
      yield `${(elapsed / 1000).toFixed(4)},0.0001,0.0000,0.0001,0.0040,0.0001,${status},${offset.toFixed(4)}`;
    } else {
      yield `${START + Math.floor((i / n) * SPAN)},${elapsed},GET /items,${failed ? 503 : 200},${failed ? 'Service Unavailable' : 'OK'},users 1-${i % 8},text,${!failed},,124,174,8,8,http://shop.apps.example.com/items,${elapsed - 1},0,0,${crypto.randomUUID()}`;
    }
  }
}
