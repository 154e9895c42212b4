// The HTTP server keeps an idle connection open longer than gorouter reuses one (90 s), so a drain POST
// sent on a connection that stood idle is answered, not met by a closing socket (a 502 at the router).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createHttpServer } from '../../collector/metrics-server.js';

/** gorouter's idle timeout for connections to apps (its backend transport's IdleConnTimeout). */
const GOROUTER_IDLE_MS = 90_000;

/** Node's default keep-alive timeout is 5 s: an idle stretch past it tells the two settings apart. */
const IDLE_MS = 6000;

/**
 * Reads one HTTP/1.1 response (status line, headers and a Content-Length body) from the socket.
 * @param {net.Socket} socket @returns {Promise<number>} the status, or -1 when the socket ended first
 */
function readResponse(socket) {
  return new Promise((resolve) => {
    let text = '';
    const onData = (/** @type {Buffer} */ chunk) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      done(Number(text.split(' ')[1]));
    };
    const onEnd = () => done(-1);
    const done = (/** @type {number} */ status) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      resolve(status);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
  });
}

describe('HTTP keep-alive behind gorouter', () => {
  it('keeps an idle connection past the router, and answers a request reusing it after 6 s', async () => {
    const server = createHttpServer({
      registry: new Registry(),
      bearerToken: undefined,
      log: pino({ level: 'silent' }),
      health: async () => ({ healthy: true, body: { status: 'ok' } }),
    });
    assert.ok(server.keepAliveTimeout > GOROUTER_IDLE_MS, `keepAliveTimeout ${server.keepAliveTimeout}`);
    assert.ok(server.headersTimeout > server.keepAliveTimeout, `headersTimeout ${server.headersTimeout}`);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = /** @type {net.AddressInfo} */ (server.address());
    const socket = net.connect(port, '127.0.0.1');
    try {
      await once(socket, 'connect');
      const request = 'GET /livez HTTP/1.1\r\nHost: paasmon\r\nConnection: keep-alive\r\n\r\n';
      socket.write(request);
      assert.equal(await readResponse(socket), 200);
      let ended = false;
      socket.once('end', () => (ended = true));
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      assert.equal(ended, false, 'the server closed the idle connection');
      socket.write(request);
      assert.equal(await readResponse(socket), 200, 'the second request on the same connection');
    } finally {
      socket.destroy();
      server.close();
      server.closeAllConnections();
    }
  });
});
