// One fresh 128-bit id per request, sent in every form the router side can pick up (ARCHITECTURE.md,
// "Correlation ids"): X-Correlation-Id (UUID), W3C traceparent, and B3 trace + span ids.
import crypto from 'node:crypto';
import { uuidFromHex32 } from '../core/ids.js';

// Random bytes drawn 64 KiB at a time: one randomFillSync per request took 7 % of the load
// generator's CPU (bench/loadgen.bench.js profile).
const POOL = Buffer.alloc(64 * 1024);
let offset = POOL.length;
function randomBytes24() {
  if (offset + 24 > POOL.length) {
    crypto.randomFillSync(POOL);
    offset = 0;
  }
  offset += 24;
  return POOL.subarray(offset - 24, offset);
}

/**
 * @param {string} correlationHeader e.g. X-Correlation-Id
 * @returns {{ id: string, headers: Record<string, string> }} id in lower-case UUID form
 */
export function requestIdHeaders(correlationHeader) {
  const bytes = randomBytes24();
  const trace = bytes.subarray(0, 16).toString('hex');
  const span = bytes.subarray(16, 24).toString('hex');
  const id = uuidFromHex32(trace);
  return {
    id,
    headers: {
      [correlationHeader.toLowerCase()]: id,
      traceparent: `00-${trace}-${span}-01`,
      'x-b3-traceid': trace,
      'x-b3-spanid': span,
    },
  };
}
