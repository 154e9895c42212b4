// One fresh 128-bit id per request, sent in every form the router side can pick up (ARCHITECTURE.md,
// "Correlation ids"): X-Correlation-Id (UUID), W3C traceparent, and B3 trace + span ids.
import crypto from 'node:crypto';
import { uuidFromHex32 } from '../core/ids.js';

// Random bytes drawn 64 KiB at a time: one randomFillSync per request took 7 % of the load
// generator's CPU (bench/loadgen.bench.js profile).
const POOL = Buffer.alloc(64 * 1024);
let offset = POOL.length;

/** Where the next 24 fresh random bytes start in POOL. */
function next24() {
  if (offset + 24 > POOL.length) {
    crypto.randomFillSync(POOL);
    offset = 0;
  }
  offset += 24;
  return offset - 24;
}

/**
 * The request headers as undici takes them, a flat [name, value, ...] list built once: the fixed
 * ones, then the four id headers, whose values `drawIds` adds for each request.
 * @param {Record<string, string>} fixed lower-case names @param {string} correlationHeader e.g. X-Correlation-Id
 */
export function headerTemplate(fixed, correlationHeader) {
  const names = [correlationHeader.toLowerCase(), 'traceparent', 'x-b3-traceid', 'x-b3-spanid'];
  /** @type {string[]} */
  const template = [];
  for (const [name, value] of Object.entries(fixed)) if (!names.includes(name)) template.push(name, value);
  return { template, names };
}

/**
 * The template's headers with a new 128-bit id in every form.
 * @param {ReturnType<typeof headerTemplate>} t
 * @returns {{ id: string, headers: string[] }} id in lower-case UUID form
 */
export function drawIds({ template, names }) {
  const at = next24();
  const trace = POOL.toString('hex', at, at + 16);
  const span = POOL.toString('hex', at + 16, at + 24);
  const id = uuidFromHex32(trace);
  const headers = template.slice();
  headers.push(names[0], id, names[1], `00-${trace}-${span}-01`, names[2], trace, names[3], span);
  return { id, headers };
}
