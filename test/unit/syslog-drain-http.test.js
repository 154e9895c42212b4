// POST /drain (collector/sources/syslog-drain/http.js) over a real HTTP server, with a stand-in
// receiver: a body is parsed a slice at a time (the event loop turns between slices, so that
// PostgreSQL's answers to the page writes are read meanwhile), and a shutdown in the middle of a
// body, or a buffer still full after the hold, refuses the rest with 503 (the agent sends the body
// again; what was taken is not stored twice).
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import pino from 'pino';
import { MESSAGES_PER_TURN, createDrainHandler } from '../../collector/sources/syslog-drain/http.js';
import { batchBodies, logMessage, rtrEnvelope } from '../support/syslog-agent-standin.js';

const TOKEN = 'unit-drain-token';
const MESSAGES = 1000;

/** A receiver that takes everything and notes each offer's size and the event-loop turns between offers. */
function standInReceiver({ closeAfterOffers = Infinity, fullAfterOffers = Infinity } = {}) {
  const seen = { offers: /** @type {number[]} */ ([]), turnsBetween: 0, refused: 0, closed: false };
  let turns = 0;
  const tick = () => {
    turns += 1;
    if (!seen.closed) setImmediate(tick);
  };
  return {
    seen,
    startTicking: () => setImmediate(tick),
    receiver: {
      get room() {
        return seen.offers.length >= fullAfterOffers ? 0 : 1_000_000;
      },
      get closed() {
        return seen.closed;
      },
      /** @param {Iterable<string>} messages */
      offer(messages) {
        if (seen.offers.length > 0 && turns > 0) seen.turnsBetween += 1;
        turns = 0;
        const n = [...messages].length;
        seen.offers.push(n);
        if (seen.offers.length >= closeAfterOffers) seen.closed = true;
        return n;
      },
      refuse: (/** @type {number} */ n) => void (seen.refused += n),
      unauthorized() {},
      waitForRoom: async () => seen.offers.length < fullAfterOffers,
    },
  };
}

/** Posts one body of MESSAGES messages to a server running the handler: the status. @param {any} receiver */
async function postBody(receiver) {
  const handler = createDrainHandler({ token: TOKEN, receiver, log: pino({ level: 'silent' }) });
  const server = http.createServer((req, res) => void handler(req, res, new URL(req.url ?? '/', 'http://x')));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const messages = Array.from({ length: MESSAGES }, (_, i) =>
      logMessage(rtrEnvelope(`line ${i}`, { appGuid: 'a0000000-0000-4000-8000-000000000001', appName: 'shop' })),
    );
    const [body] = batchBodies(messages, Infinity);
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    const response = await fetch(`http://127.0.0.1:${port}/drain?token=${TOKEN}`, {
      method: 'POST',
      body: new Uint8Array(body),
    });
    await response.arrayBuffer();
    return response.status;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

describe('POST /drain: a body parsed a slice at a time', () => {
  it('offers the messages in slices, the event loop turning between them', async () => {
    const { seen, receiver, startTicking } = standInReceiver();
    startTicking();
    assert.equal(await postBody(receiver), 204);
    seen.closed = true;
    assert.equal(
      seen.offers.reduce((a, b) => a + b, 0),
      MESSAGES,
    );
    assert.deepEqual(
      seen.offers,
      Array.from({ length: Math.ceil(MESSAGES / MESSAGES_PER_TURN) }, () => MESSAGES_PER_TURN),
    );
    assert.equal(seen.turnsBetween, seen.offers.length - 1, 'other work ran between every two slices');
  });

  it('refuses the rest of a body with 503 when the drain closes in its middle', async () => {
    const { seen, receiver } = standInReceiver({ closeAfterOffers: 1 });
    assert.equal(await postBody(receiver), 503);
    assert.deepEqual(seen.offers, [MESSAGES_PER_TURN]);
    assert.equal(seen.refused, MESSAGES - MESSAGES_PER_TURN);
  });

  it('holds a body whose buffer fills in its middle, then refuses the rest with 503', async () => {
    const { seen, receiver } = standInReceiver({ fullAfterOffers: 2 });
    assert.equal(await postBody(receiver), 503);
    assert.deepEqual(seen.offers, [MESSAGES_PER_TURN, MESSAGES_PER_TURN]);
    assert.equal(seen.refused, MESSAGES - 2 * MESSAGES_PER_TURN);
  });
});

describe('POST /drain: bodies read into reused buffers', () => {
  it('gives each body its own messages, a short one after a long one and two at once', async () => {
    /** @type {string[][]} */
    const offered = [];
    const receiver = {
      room: 1_000_000,
      closed: false,
      /** @param {Iterable<string>} messages */
      offer(messages) {
        const texts = [...messages];
        offered.push(texts);
        return texts.length;
      },
      refuse() {},
      unauthorized() {},
      waitForRoom: async () => true,
    };
    const handler = createDrainHandler({ token: TOKEN, receiver: /** @type {any} */ (receiver), log: pino() });
    const server = http.createServer((req, res) => void handler(req, res, new URL(req.url ?? '/', 'http://x')));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    /** @param {string} tag @param {number} n */
    const bodyOf = (tag, n) =>
      batchBodies(
        Array.from({ length: n }, (_, i) =>
          logMessage(rtrEnvelope(`${tag} ${i}`, { appGuid: 'a0000000-0000-4000-8000-000000000001', appName: 'x' })),
        ),
        Infinity,
      )[0];
    /** @param {Buffer} body */
    const post = async (body) => {
      const response = await fetch(`http://127.0.0.1:${port}/drain?token=${TOKEN}`, {
        method: 'POST',
        body: new Uint8Array(body),
      });
      await response.arrayBuffer();
      return response.status;
    };
    try {
      const long = bodyOf('long', 3 * MESSAGES_PER_TURN);
      const short = bodyOf('short', 3);
      assert.equal(await post(long), 204);
      assert.equal(await post(short), 204);
      const [a, b] = [bodyOf('left', 2 * MESSAGES_PER_TURN + 1), bodyOf('right', 2 * MESSAGES_PER_TURN + 1)];
      assert.deepEqual(await Promise.all([post(a), post(b)]), [204, 204]);
      const all = offered.flat();
      const expected = [long, short, a, b].map((body) => body.toString());
      assert.equal(all.filter((m) => m.includes('] short ')).join(''), expected[1]);
      assert.equal(all.filter((m) => m.includes('] long ')).join(''), expected[0]);
      assert.equal(all.filter((m) => m.includes('] left ')).join(''), expected[2]);
      assert.equal(all.filter((m) => m.includes('] right ')).join(''), expected[3]);
      assert.equal(all.length, 3 * MESSAGES_PER_TURN + 3 + 2 * (2 * MESSAGES_PER_TURN + 1));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
