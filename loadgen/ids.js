// One fresh 128-bit id per request, sent in every form the router side can pick up (ARCHITECTURE.md,
// "Correlation ids"): X-Correlation-Id (UUID), W3C traceparent, and B3 trace + span ids.
//
// The 128-bit id has the UUIDv7 layout (RFC 9562): 48 bits of Unix milliseconds, then 74 random
// bits. Ids that grow with time are appended at the right edge of loadgen_requests' primary key
// instead of landing on a random page of it, which costs PostgreSQL less CPU per recorded row
// (bench/loadgen.bench.js). Span ids stay fully random.
import crypto from 'node:crypto';

// Random bytes drawn 64 KiB at a time, not one randomFillSync (a call into C++) per request.
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

/** Lower-case hex digits of each byte value, as character codes: HEX[2b], HEX[2b + 1]. */
const HEX = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  const text = b.toString(16).padStart(2, '0');
  HEX[2 * b] = text.charCodeAt(0);
  HEX[2 * b + 1] = text.charCodeAt(1);
}
const DASH = 0x2d;

// One request's ids as latin1 text, built in place and made a string once, then cut (no string
// joins to flatten later): the UUID (0-36), then the traceparent (36-91), which holds the trace
// id (39-71) and the span id (72-88).
const TEXT = Buffer.from(`${'0'.repeat(36)}00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`, 'latin1');
const UUID_DASHES = [8, 13, 18, 23];
const TRACE_AT = 39;
const SPAN_AT = 72;

let millisecond = -1;
/** @param {number} ms whole Unix milliseconds: 12 hex digits at the start of the trace id */
function writeMillisecond(ms) {
  millisecond = ms;
  const hex = ms.toString(16).padStart(12, '0');
  for (let i = 0; i < 12; i++) TEXT[TRACE_AT + i] = hex.charCodeAt(i);
}

/** @param {number} to @param {number} from offset in POOL @param {number} count bytes */
function writeHex(to, from, count) {
  for (let i = 0; i < count; i++) {
    const b = POOL[from + i];
    TEXT[to + 2 * i] = HEX[2 * b];
    TEXT[to + 2 * i + 1] = HEX[2 * b + 1];
  }
}

/**
 * Fills TEXT: the trace id in the UUIDv7 layout (time: 12 digits, version 7, 3 random digits,
 * variant 10 + 2 random bits, 15 random digits), the span id, and the UUID form of the trace id.
 * @param {number} nowMs Unix milliseconds @param {number} at offset of RANDOM_BYTES random bytes in POOL
 */
function writeIds(nowMs, at) {
  const ms = Math.floor(nowMs);
  if (ms !== millisecond) writeMillisecond(ms);
  // Bytes 0-8 give 18 random digits, written from digit 14 on; the first three move left by
  // one to make room for the variant (binary 10 and two random bits of byte 9).
  const trace = TRACE_AT;
  writeHex(trace + 14, at, 9);
  TEXT[trace + 12] = 0x37; // version 7
  TEXT[trace + 13] = TEXT[trace + 14];
  TEXT[trace + 14] = TEXT[trace + 15];
  TEXT[trace + 15] = TEXT[trace + 16];
  TEXT[trace + 16] = HEX[2 * (0x08 | (POOL[at + 9] & 3)) + 1];
  writeHex(SPAN_AT, at + 10, 8);
  for (let i = 0, o = 0; i < 32; i++, o++) {
    if (o === UUID_DASHES[0] || o === UUID_DASHES[1] || o === UUID_DASHES[2] || o === UUID_DASHES[3]) TEXT[o++] = DASH;
    TEXT[o] = TEXT[TRACE_AT + i];
  }
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
  writeIds(nowMs, nextRandom());
  // One string from the buffer, cut into the four values: each toString is a call into C++, and
  // slices of a string are views, not copies.
  const text = TEXT.toString('latin1', 0, 91);
  const id = text.slice(0, 36);
  const headers = template.slice();
  headers.push(
    names[0],
    id,
    names[1],
    text.slice(36, 91),
    names[2],
    text.slice(TRACE_AT, TRACE_AT + 32),
    names[3],
    text.slice(SPAN_AT, SPAN_AT + 16),
  );
  return { id, headers };
}
