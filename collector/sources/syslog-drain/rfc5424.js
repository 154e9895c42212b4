// Pure parsing of what the Cloud Foundry syslog agent sends to a drain. No I/O here.
//
// Shapes, from cloudfoundry/loggregator-agent-release src/pkg/egress/syslog/ (rfc5424.go, https.go,
// https_batch.go, tcp.go) and go-loggregator rfc5424/marshal.go:
// - a log envelope becomes `<PRI>1 TIMESTAMP HOSTNAME APP-NAME [SOURCE/INSTANCE] - [tags@47450 ...] PAYLOAD\n`
//   (PRI 14 for OUT, 11 for ERR; HOSTNAME `org.space.app` sanitized; APP-NAME the source id, i.e. the
//   app guid; the payload always ends with one newline, NUL bytes removed);
// - https:// posts one message per request; https-batch:// concatenates messages (up to 512 KiB,
//   or what one second gathered) into one body with nothing between them but each message's newline;
// - syslog:// and syslog-tls:// write RFC 6587 octet counting: `<byte length> <message>`.
import { DRAIN } from '../../../core/reason-codes.js';

/**
 * Whether a syslog header starts at `at`: `<PRI>1 `, PRI 1-3 digits.
 * @param {Buffer} bytes @param {number} at
 */
function headerStartsAt(bytes, at) {
  if (bytes[at] !== 0x3c) return false;
  let end = at + 1;
  while (end - at <= 3 && bytes[end] >= 0x30 && bytes[end] <= 0x39) end += 1;
  return end > at + 1 && bytes[end] === 0x3e && bytes[end + 1] === 0x31 && bytes[end + 2] === 0x20;
}

/**
 * Where the messages of an HTTPS drain body are: one (https://) or several back to back
 * (https-batch://). A newline inside a payload stays with its message unless a syslog header
 * follows it.
 * @param {Buffer} body
 * @returns {number[]} the start and end of each message, one after the other
 */
export function messageBounds(body) {
  /** @type {number[]} */
  const bounds = [];
  /** @param {number} start @param {number} end */
  const add = (start, end) => {
    if (end > start && !(end === start + 1 && body[start] === 0x0a)) bounds.push(start, end);
  };
  let start = 0;
  for (let newline = body.indexOf(0x0a); newline >= 0; newline = body.indexOf(0x0a, newline + 1)) {
    if (!headerStartsAt(body, newline + 1)) continue;
    add(start, newline + 1);
    start = newline + 1;
  }
  add(start, body.length);
  return bounds;
}

/**
 * The messages of a body, each decoded only when it is reached: a string of the whole body (half a
 * megabyte, allocated in the old generation) or all its messages at once would outlive many
 * collections of the young generation while the body is parsed.
 * @param {Buffer} body @param {number[]} bounds messageBounds(body)
 * @param {number} [from] the first message's index @param {number} [to] the index after the last message
 * @returns {Generator<string>}
 */
export function* messagesOf(body, bounds, from = 0, to = bounds.length / 2) {
  for (let i = 2 * from; i < 2 * to; i += 2) yield body.toString('utf8', bounds[i], bounds[i + 1]);
}

/** The messages of an HTTPS drain body, as strings. @param {Buffer} body @returns {string[]} */
export const splitHttpBody = (body) => [...messagesOf(body, messageBounds(body))];

/**
 * @typedef {{ kind: 'message', text: string } | { kind: 'error', reason: string, bytes: number }} Frame
 */

/**
 * Where the length prefix at `at` ends (1-9 digits, the first not 0, then a space): the space's index, or -1.
 * Read byte by byte: a regular expression on a decoded head costs a string and a match per message.
 * @param {Buffer} data @param {number} at
 */
function lengthPrefixEnd(data, at) {
  if (!(data[at] >= 0x31 && data[at] <= 0x39)) return -1;
  let i = at + 1;
  while (i < at + 9 && data[i] >= 0x30 && data[i] <= 0x39) i += 1;
  return data[i] === 0x20 ? i : -1;
}
/** No bytes held. */
const NOTHING = Buffer.alloc(0);
const RESYNC = /[1-9]\d{0,8} <\d{1,3}>1 /g;

/**
 * Garbage at the head of `data`: skipped up to the next plausible frame start or, none in sight, up
 * to a short tail kept for the next chunk (a frame start may be split across the two).
 * @param {Buffer} data @returns {{ skipped: number, rest: Buffer | undefined, keep: Buffer }}
 */
function skipGarbage(data) {
  RESYNC.lastIndex = 1;
  const next = RESYNC.exec(data.toString('latin1'));
  if (next) return { skipped: next.index, rest: data.subarray(next.index), keep: Buffer.alloc(0) };
  const keep = Math.min(24, data.length);
  return { skipped: data.length - keep, rest: undefined, keep: Buffer.from(data.subarray(data.length - keep)) };
}

/**
 * The frames `read` finds in `chunk`, as objects.
 * @param {ReturnType<typeof createOctetCountingFramer>['read']} read @param {Buffer} chunk @returns {Frame[]}
 */
function framesOf(read, chunk) {
  /** @type {Frame[]} */
  const frames = [];
  read(
    chunk,
    (text) => frames.push({ kind: 'message', text }),
    (reason, bytes) => frames.push({ kind: 'error', reason, bytes }),
  );
  return frames;
}

/**
 * RFC 6587 octet counting over a byte stream that arrives in arbitrary pieces. Garbage (a frame
 * without a length) is skipped up to the next `<len> <PRI>1 ` and reported once per run of
 * garbage; a frame longer than `maxMessageBytes` is skipped (never held in memory) and reported.
 * @param {{ maxMessageBytes: number }} options
 */
export function createOctetCountingFramer({ maxMessageBytes }) {
  /** @type {Buffer} */
  let pending = NOTHING;
  /** bytes of an oversized frame still to skip */
  let skipping = 0;
  /** @type {Buffer[]} the body of the frame being collected */
  let parts = [];
  let collected = 0;
  let expected = -1;

  /**
   * The chunk's complete messages, each decoded once from where it lies (no Buffer or frame object per message).
   * @param {Buffer} chunk @param {(text: string) => void} onMessage
   * @param {(reason: string, bytes: number) => void} onError a frame that is no message, and its size
   */
  function read(chunk, onMessage, onError) {
    let data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    pending = NOTHING;
    let at = 0;
    for (;;) {
      if (skipping > 0) {
        const n = Math.min(skipping, data.length - at);
        skipping -= n;
        at += n;
        if (skipping > 0) return;
      }
      if (expected >= 0) {
        const n = Math.min(expected - collected, data.length - at);
        if (collected === 0 && n === expected) onMessage(data.toString('utf8', at, at + n));
        else {
          // A message across reads: its pieces are kept, decoded once whole.
          parts.push(data.subarray(at, at + n));
          collected += n;
          if (collected < expected) return;
          onMessage(Buffer.concat(parts, collected).toString('utf8'));
          parts = [];
        }
        at += n;
        collected = 0;
        expected = -1;
      }
      if (at === data.length) return;
      const space = lengthPrefixEnd(data, at);
      if (space > 0) {
        let length = 0;
        for (let digit = at; digit < space; digit += 1) length = length * 10 + data[digit] - 0x30;
        at = space + 1;
        if (length > maxMessageBytes) {
          onError(DRAIN.TOO_LARGE, length);
          skipping = length;
        } else expected = length;
        continue;
      }
      // The prefix is ASCII: look at a short head only.
      if (data.length - at < 16 && /^\d{0,9}$/.test(data.toString('latin1', at))) {
        // An incomplete length prefix: wait for the rest.
        pending = Buffer.from(data.subarray(at));
        return;
      }
      const garbage = skipGarbage(data.subarray(at));
      if (garbage.skipped > 0) onError(DRAIN.BAD_FRAME, garbage.skipped);
      if (!garbage.rest) {
        pending = garbage.keep;
        return;
      }
      data = garbage.rest;
      at = 0;
    }
  }

  return {
    read,
    /** The chunk's frames, as `read` finds them. @param {Buffer} chunk */
    push: (chunk) => framesOf(read, chunk),
    /** Bytes held for an unfinished frame (0 between frames). */
    get buffered() {
      return pending.length + collected;
    },
  };
}
