// One fresh 128-bit id per request, sent in every form the router side can pick up (ARCHITECTURE.md,
// "Correlation ids"): X-Correlation-Id (UUID), W3C traceparent, and B3 trace + span ids.
//
// The 128-bit id has the UUIDv7 layout (RFC 9562): 48 bits of Unix milliseconds, then 74 random
// bits. Ids that grow with time are appended at the right edge of loadgen_requests' primary key
// instead of landing on a random page of it: 2.5 of PostgreSQL's 9 us of CPU per recorded row
// (bench/loadgen.bench.js). Span ids stay fully random.
import crypto from 'node:crypto';
import { uuidFromHex32 } from '../core/ids.js';

// Random bytes drawn 64 KiB at a time: one randomFillSync per request took 7 % of the load
// generator's CPU (bench/loadgen.bench.js profile).
const POOL = Buffer.alloc(64 * 1024);
let offset = POOL.length;
/** Bytes of randomness a request takes: 10 for the trace id, 8 for the span id. */
const RANDOM_BYTES = 18;

/** Where the next RANDOM_BYTES fresh random bytes start in POOL. */
function nextRandom() {
  if (offset + RANDOM_BYTES > POOL.length) {
    crypto.randomFillSync(POOL);
    offset = 0;
  }
  offset += RANDOM_BYTES;
  return offset - RANDOM_BYTES;
}

/** The variant nibble (binary 10xx) from two random bits. */
const VARIANT = ['8', '9', 'a', 'b'];
let millisecond = -1;
let millisecondHex = '';

/**
 * 32 hex digits in the UUIDv7 layout: time (12), version 7, 3 random, variant + 2 random bits, 15 random.
 * @param {number} nowMs Unix milliseconds @param {number} at offset of 10 random bytes in POOL
 */
function traceHex(nowMs, at) {
  const ms = Math.floor(nowMs);
  if (ms !== millisecond) {
    millisecond = ms;
    millisecondHex = ms.toString(16).padStart(12, '0');
  }
  const random = POOL.toString('hex', at, at + 10);
  return `${millisecondHex}7${random.slice(0, 3)}${VARIANT[POOL[at + 9] & 3]}${random.slice(3, 18)}`;
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
 * @param {ReturnType<typeof headerTemplate>} t @param {number} [nowMs] Unix milliseconds (the id's time)
 * @returns {{ id: string, headers: string[] }} id in lower-case UUID form
 */
export function drawIds({ template, names }, nowMs = Date.now()) {
  const at = nextRandom();
  const trace = traceHex(nowMs, at);
  const span = POOL.toString('hex', at + 10, at + RANDOM_BYTES);
  const id = uuidFromHex32(trace);
  const headers = template.slice();
  headers.push(names[0], id, names[1], `00-${trace}-${span}-01`, names[2], trace, names[3], span);
  return { id, headers };
}
