// POST /drain?token=...: the HTTPS drain (https:// one message per request, https-batch:// several).
// The agent counts any 2xx as delivered and retries anything else (https.go, https_batch.go), so
// 503 with the buffer full loses nothing.
import crypto from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { messageBounds, messagesOf } from './rfc5424.js';

/**
 * @typedef {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, url: URL) =>
 *   Promise<void>} RouteHandler
 */

/** Larger than the agent's 512 KiB batch plus one long message; a bigger body is refused whole. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Well under the agent's 20 s read timeout (https.go httpClient). */
const HOLD_WHEN_FULL_MS = 3000;
/**
 * Messages of a body parsed per turn of the event loop: a whole body parsed at once would keep
 * PostgreSQL's answers to the page writes waiting that long, and the writes (several round trips
 * each) would fall behind the intake.
 */
export const MESSAGES_PER_TURN = 200;
/**
 * Bodies up to this size (the agent's batches) are read into buffers kept for the next bodies: a new half
 * megabyte per body is external memory, whose growth makes V8 collect its whole heap more often.
 */
const POOLED_BODY_BYTES = 1024 * 1024;
/** Buffers kept at most (one per body parsed at once; the agent keeps 5 connections per drain). */
const POOLED_BODIES = 8;

/**
 * Constant-time token check: both sides are hashed first, so neither the content nor the length of
 * the expected token shows in the timing.
 * @param {string | null} given @param {Buffer} expectedDigest sha256 of the expected token
 */
function tokenMatches(given, expectedDigest) {
  if (given === null) return false;
  return crypto.timingSafeEqual(crypto.createHash('sha256').update(given).digest(), expectedDigest);
}

/**
 * @param {object} options
 * @param {string} options.token DRAIN_TOKEN
 * @param {import('./receiver.js').DrainReceiver} options.receiver
 * @param {import('pino').Logger} options.log
 * @returns {RouteHandler}
 */
export function createDrainHandler({ token, receiver, log }) {
  const expected = crypto.createHash('sha256').update(token).digest();
  /** @type {Buffer[]} free body buffers */
  const bodies = [];
  return async (req, res, url) => {
    if (req.method !== 'POST') {
      res
        .writeHead(405, { Allow: 'POST', 'Content-Type': 'text/plain' })
        .end('POST syslog messages to /drain?token=...\n');
      return;
    }
    if (!tokenMatches(url.searchParams.get('token'), expected)) {
      receiver.unauthorized();
      req.resume();
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('drain token missing or wrong\n');
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      res
        .writeHead(413, { 'Content-Type': 'text/plain', Connection: 'close' })
        .end(`body over ${MAX_BODY_BYTES} bytes\n`);
      return;
    }
    const space =
      declared > 0 && declared <= POOLED_BODY_BYTES
        ? (bodies.pop() ?? Buffer.allocUnsafe(POOLED_BODY_BYTES))
        : undefined;
    try {
      const body = await readBody(req, res, space);
      if (body) await offerBody(res, body);
    } finally {
      if (space && bodies.length < POOLED_BODIES) bodies.push(space);
    }
  };

  /**
   * The body's messages offered a slice per turn; 204 once all are taken, else 503 for the rest.
   * @param {import('node:http').ServerResponse} res @param {Buffer} body
   */
  async function offerBody(res, body) {
    const bounds = messageBounds(body);
    const count = bounds.length / 2;
    // A full buffer first holds the answer a moment (back-pressure, as TCP gets by not reading): a
    // write in flight usually makes room. Still full (the database is down), the body is refused
    // with 503 and the agent sends it again after its backoff; what was taken of it is not stored twice.
    // Checked before each slice: bodies parsed side by side pass the bound by a slice each, not a body.
    let accepted = 0;
    for (let from = 0; from < count; from += MESSAGES_PER_TURN) {
      if (from > 0) await nextTurn();
      if (receiver.closed) return refuseBody(res, receiver, count - from);
      if (receiver.room === 0 && !(await receiver.waitForRoom(HOLD_WHEN_FULL_MS))) {
        return refuseBody(res, receiver, count - from);
      }
      accepted += receiver.offer(messagesOf(body, bounds, from, Math.min(count, from + MESSAGES_PER_TURN)));
    }
    log.trace({ messages: count, accepted }, 'drain: http body');
    res.writeHead(204).end();
  }
}

/**
 * The body, read into `space` when it fits (else into a buffer of its own); undefined when it was over
 * MAX_BODY_BYTES (answered 413).
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 * @param {Buffer | undefined} space
 */
async function readBody(req, res, space) {
  /** @type {Buffer[]} */
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    if (space && chunks.length === 0 && size + chunk.length <= space.length) chunk.copy(space, size);
    else {
      // More than was declared: what is in `space` so far goes first.
      if (space && chunks.length === 0 && size > 0) chunks.push(Buffer.from(space.subarray(0, size)));
      chunks.push(chunk);
    }
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      res
        .writeHead(413, { 'Content-Type': 'text/plain', Connection: 'close' })
        .end(`body over ${MAX_BODY_BYTES} bytes\n`);
      req.destroy();
      return undefined;
    }
  }
  return chunks.length === 0 && space ? space.subarray(0, size) : Buffer.concat(chunks, size);
}

/**
 * 503: the agent sends the body again after its backoff.
 * @param {import('node:http').ServerResponse} res @param {import('./receiver.js').DrainReceiver} receiver
 * @param {number} messages how many of the body's messages were not taken
 */
function refuseBody(res, receiver, messages) {
  receiver.refuse(messages);
  res
    .writeHead(503, { 'Retry-After': '1', 'Content-Type': 'text/plain' })
    .end('drain buffer full (database unreachable?); send again\n');
}
