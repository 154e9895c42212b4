// Gatling's simulation.log: binary since 3.13.0 (LogFileDataWriter; pinned to the layout of
// 3.13.5, as Gatling documents none), tab-separated text before. Gatling records no HTTP status:
// an OK request is stored as 200, a KO one with the status its check found (`found 503`), else 0.
// The log holds no header either, so an id comes only from a request name that carries a UUID.
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { request, transportErrorKind } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */

const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * @param {{ name: string, startMs: number, endMs: number, ok: boolean, message: string }} r
 * @returns {import('./records.js').ImportedRequest}
 */
function gatlingRequest({ name, startMs, endMs, ok, message }) {
  const found = /found (\d{3})\b/.exec(message)?.[1];
  const status = ok ? 200 : found ? Number(found) : 0;
  return request({
    correlationId: UUID_IN.exec(name)?.[0] ?? null,
    startedAtMs: startMs,
    durationMs: endMs - startMs,
    status,
    error: ok ? null : status ? message || 'KO' : transportErrorKind(message),
    tool: 'gatling',
    method: /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\b/.exec(name)?.[1] ?? null,
    url: name,
    bytes: null,
  });
}

/**
 * A text simulation.log line (Gatling before 3.13). REQUEST lines end in start, end (epoch ms),
 * OK|KO and the message; the fields before the name changed between versions (scenario, user id,
 * groups), so they are read from the status backwards.
 * @param {string} line @returns {LineResult}
 */
export function gatlingTextLine(line) {
  if (!line.startsWith('REQUEST\t'))
    return /^(RUN|USER|GROUP|ERROR|ASSERTION)\t/.test(line) ? null : LOAD_RESULTS.NOT_GATLING;
  const fields = line.split('\t');
  let at = fields.length - 1;
  while (at >= 4 && fields[at] !== 'OK' && fields[at] !== 'KO') at -= 1;
  if (at < 4) return LOAD_RESULTS.TRUNCATED;
  const startMs = Number(fields[at - 2]);
  const endMs = Number(fields[at - 1]);
  if (!Number.isInteger(startMs) || !Number.isInteger(endMs) || endMs < startMs) return LOAD_RESULTS.BAD_NUMBER;
  const ok = fields[at] === 'OK';
  return gatlingRequest({ name: fields[at - 3], startMs, endMs, ok, message: (fields[at + 1] ?? '').trim() });
}

/** Thrown inside a record when the bytes read so far end before it does. */
const NEED_MORE = Symbol('need more bytes');

/**
 * Reads the fields of the binary log from the bytes fed so far; a field past their end throws
 * NEED_MORE, and the record is read again once more bytes came.
 */
function fieldReader() {
  const r = {
    /** @type {Buffer} */
    buffer: Buffer.alloc(0),
    at: 0,
    /** @type {Map<number, string>} */
    cache: new Map(),
    /** @param {number} n */
    need(n) {
      if (r.at + n > r.buffer.length) throw NEED_MORE;
    },
    /** @param {number} n */
    skip: (n) => (r.need(n), (r.at += n)),
    int32: () => (r.need(4), (r.at += 4), r.buffer.readInt32BE(r.at - 4)),
    int64: () => (r.need(8), (r.at += 8), Number(r.buffer.readBigInt64BE(r.at - 8))),
    byte: () => (r.need(1), (r.at += 1), r.buffer[r.at - 1]),
    string() {
      const length = r.int32();
      if (length === 0) return '';
      if (length < 0 || length > 1 << 24) throw new Error('corrupt string length');
      r.need(length + 1);
      const bytes = r.buffer.subarray(r.at, r.at + length);
      r.at += length + 1;
      return bytes.toString(r.buffer[r.at - 1] === 1 ? 'utf16le' : 'latin1');
    },
    cached() {
      const k = r.int32();
      if (k === 0) return '';
      if (k < 0) return r.cache.get(-k) ?? '';
      const text = r.string();
      r.cache.set(k, text);
      return text;
    },
    /** @param {() => unknown} one */
    list(one) {
      for (let n = r.int32(); n > 0; n--) one();
    },
  };
  return r;
}

/**
 * One record of the binary log: a request, null for the others (RUN sets the start of the times).
 * @param {ReturnType<typeof fieldReader>} r @param {{ runStartMs: number }} run @returns {LineResult}
 */
function binaryRecord(r, run) {
  const type = r.byte();
  if (type === 0) {
    r.string();
    r.string();
    run.runStartMs = r.int64();
    r.string();
    r.list(r.string);
    r.list(() => r.skip(r.int32()));
    return null;
  }
  if (type === 1) {
    r.list(r.cached);
    const name = r.cached();
    const start = r.int32();
    const end = r.int32();
    const ok = r.byte() === 1;
    const message = r.cached();
    if (Number.isNaN(run.runStartMs)) return LOAD_RESULTS.NO_RUN_RECORD;
    return gatlingRequest({ name, startMs: run.runStartMs + start, endMs: run.runStartMs + end, ok, message });
  }
  if (type === 2) return (r.skip(9), null);
  if (type === 3) return (r.list(r.cached), r.skip(13), null);
  if (type === 4) return (r.cached(), r.skip(4), null);
  throw new Error(`unknown record type ${type}`);
}

/**
 * The binary log (big-endian): records of a type byte and their fields; strings are an int32
 * length, the bytes and a coder byte (0 Latin-1, 1 UTF-16LE); cached strings an int32 k, a string
 * when k > 0 (entry k), entry -k when k < 0. REQUEST times are ms since the RUN record's start.
 * Feed it chunks; a record cut by the end of the file is one `truncated` skip.
 */
export function gatlingBinaryDecoder() {
  const r = fieldReader();
  const run = { runStartMs: Number.NaN };
  return {
    /** @param {Buffer} chunk @returns {LineResult[]} the records complete so far */
    push(chunk) {
      r.buffer = r.at < r.buffer.length ? Buffer.concat([r.buffer.subarray(r.at), chunk]) : chunk;
      r.at = 0;
      /** @type {LineResult[]} */
      const out = [];
      while (r.at < r.buffer.length) {
        const begin = r.at;
        try {
          out.push(binaryRecord(r, run));
        } catch (err) {
          r.at = begin;
          if (err === NEED_MORE) break;
          // A corrupt record: what follows cannot be framed, so the rest is one skip.
          out.push(LOAD_RESULTS.CORRUPT);
          r.at = r.buffer.length;
        }
      }
      return out;
    },
    /** @returns {LineResult[]} a record cut short at the end */
    end: () => (r.at < r.buffer.length ? [LOAD_RESULTS.TRUNCATED] : []),
  };
}

/** @param {Buffer} head the file's first bytes */
export function looksLikeGatlingBinary(head) {
  if (head.length < 9 || head[0] !== 0) return false;
  const length = head.readInt32BE(1);
  if (length <= 0 || length > 32 || head.length < 5 + length) return false;
  return /^\d+\.\d+/.test(head.subarray(5, 5 + length).toString('latin1'));
}
