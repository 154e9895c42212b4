// Result files of other load tools with a known latency, for comparing imported runs: a closed load
// (each of `parallel` users sends its next request when the last one ends) whose every request is
// split into the layers outside the router, in it and behind it, written as a JMeter CSV JTL (with the
// paasmon_id variable) and the gorouter lines of the same requests, or as hey's `-o csv` (no ids).
import crypto from 'node:crypto';
import { seededRandom } from '../../report/compare/random.js';
import { gorouterLine } from './router-docs.js';

/**
 * @typedef {object} Round
 * @property {number} startMs the first send
 * @property {number} seed of the noise
 * @property {number} [requests] (3000)
 * @property {number} [parallel] users (8)
 * @property {number} [behindShiftMs] added to every request's time behind the router (0)
 * @property {number} [scale] every request's time multiplied by it (1)
 * @property {number} [resolutionMs] of the tool's times (1, as JMeter; hey's 0.1)
 *
 * @typedef {{ id: string, thread: number, sentMs: number, e2eMs: number, outsideMs: number, routerMs: number,
 *   status: number }} Request
 */

/** One request in 100 answered 503, on both sides alike. */
const failed = (/** @type {number} */ i) => i % 100 === 37;

/**
 * The requests of one round: e2e uniform from 10 to 50 ms (dense at the p95, so that few rounds pin
 * it), in the tool's resolution, of which 1.5-2.5 ms outside the router and 0.3-0.7 ms in it.
 * @param {Round} round @returns {Request[]} in order of sending
 */
export function closedLoad(round) {
  const { startMs, seed, requests = 3000, parallel = 8, behindShiftMs = 0, scale = 1, resolutionMs = 1 } = round;
  const random = seededRandom(seed);
  const free = Array.from({ length: parallel }, () => startMs);
  /** @type {Request[]} */
  const out = [];
  for (let i = 0; i < requests; i++) {
    const thread = free.indexOf(Math.min(...free));
    const ms = (10 + 40 * random() + behindShiftMs) * scale;
    const e2eMs = Math.round(ms / resolutionMs) * resolutionMs;
    const outsideMs = 1.5 + random();
    const routerMs = 0.3 + 0.4 * random();
    const id = crypto.randomUUID();
    out.push({ id, thread, sentMs: free[thread], e2eMs, outsideMs, routerMs, status: failed(i) ? 503 : 200 });
    free[thread] += e2eMs;
  }
  return out.sort((a, b) => a.sentMs - b.sentMs);
}

const JTL_HEADER =
  'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,' +
  'sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect,"paasmon_id"';

/** A JMeter CSV JTL of the requests, each with its id. @param {Request[]} requests */
export function jmeterJtl(requests) {
  const rows = requests.map((r) => {
    const ok = r.status < 500;
    return (
      `${r.sentMs},${r.e2eMs},GET /items,${r.status},${ok ? 'OK' : 'Service Unavailable'},users 1-${r.thread + 1},` +
      `text,${ok},,124,174,8,8,http://shop.apps.example.com/items,${r.e2eMs - 1},0,0,${r.id}`
    );
  });
  return `${[JTL_HEADER, ...rows].join('\n')}\n`;
}

/**
 * The router's lines of the requests: received half-way through the time outside it, response_time
 * = e2e − outside, gorouter_time = the time in it; x_correlation_id "-" for a tool that sent none.
 * @param {Request[]} requests @param {{ ids?: boolean }} [options]
 */
export function routerLog(requests, { ids = true } = {}) {
  const lines = requests.map((r) =>
    gorouterLine({
      id: ids ? r.id : '-',
      vcapRequestId: r.id,
      app: 'shop',
      appGuid: '6a1c9e1e-5b0f-4f57-9d59-2f3a8c0b7d11',
      appIndex: 0,
      receivedUs: Math.round((r.sentMs + r.outsideMs / 2) * 1000),
      responseUs: Math.round((r.e2eMs - r.outsideMs) * 1000),
      gorouterUs: Math.round(r.routerMs * 1000),
      status: r.status,
      path: '/items',
    }),
  );
  return `${lines.join('\n')}\n`;
}

const HEY_HEADER = 'response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset';

/** hey's `-o csv` of the requests: seconds, offsets from the first send. @param {Request[]} requests */
export function heyCsv(requests) {
  const first = requests[0].sentMs;
  const rows = requests.map((r) => {
    const s = r.e2eMs / 1000;
    return `${s.toFixed(4)},0.0000,0.0000,0.0001,${(s - 0.0002).toFixed(4)},0.0001,${r.status},${((r.sentMs - first) / 1000).toFixed(4)}`;
  });
  return `${[HEY_HEADER, ...rows].join('\n')}\n`;
}
