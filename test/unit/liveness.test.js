// /livez: fails only when the event loop stood still past the limit (issue 25 item 1).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import pino from 'pino';
import { createHttpServer, watchEventLoop } from '../../collector/metrics-server.js';

/** Holds the event loop for `ms`, as a blocking call or a frozen process would. @param {number} ms */
function block(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* busy */
  }
}
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

describe('watchEventLoop', () => {
  it('is ok while the loop turns, failing after a stall past the limit, ok again once it is forgotten', async () => {
    const loop = watchEventLoop({ maxStallMs: 300, memoryMs: 1500 });
    try {
      await sleep(600);
      assert.equal(loop.check().healthy, true);
      block(150); // under the limit
      await sleep(400);
      assert.equal(loop.check().healthy, true, JSON.stringify(loop.check().body));
      block(700);
      const during = loop.check(); // before any timer ran again: the loop has only just turned
      assert.equal(during.healthy, false);
      await sleep(400);
      const after = loop.check();
      assert.equal(after.healthy, false, 'remembered after the loop turns again');
      const { eventLoop } = /** @type {any} */ (after.body);
      assert.ok(eventLoop.longestStallMs >= 400 && eventLoop.longestStallMs <= 1500, JSON.stringify(after.body));
      assert.equal(eventLoop.maxStallMs, 300);
      await sleep(1700);
      assert.equal(loop.check().healthy, true, 'forgotten after memoryMs');
    } finally {
      loop.stop();
    }
  });

  it('answers /livez 200 or 503 from the check, /readyz from its own, apart from /healthz', async () => {
    const loop = watchEventLoop({ maxStallMs: 300, memoryMs: 5000 });
    let ready = true;
    const server = createHttpServer({
      registry: new Registry(),
      bearerToken: undefined,
      log: pino({ level: 'silent' }),
      health: async () => ({ healthy: false, body: { status: 'failing' } }),
      live: loop.check,
      ready: async () => ({ healthy: ready, body: { status: ready ? 'ok' : 'not_ready' } }),
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
    try {
      await sleep(300);
      assert.equal((await fetch(`${base}/healthz`)).status, 503);
      const live = await fetch(`${base}/livez`);
      assert.equal(live.status, 200);
      assert.equal(/** @type {any} */ (await live.json()).status, 'ok');
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      ready = false;
      assert.equal((await fetch(`${base}/readyz`)).status, 503);
      block(800);
      const stalled = await fetch(`${base}/livez`);
      assert.equal(stalled.status, 503);
      assert.equal(/** @type {any} */ (await stalled.json()).status, 'failing');
    } finally {
      loop.stop();
      server.close();
      server.closeAllConnections();
    }
  });
});
