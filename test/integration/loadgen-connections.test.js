// The open model's pre-opened connections: as many as asked, to IPv6 literals too, and none left
// open after close() or once unused for the keep-alive timeout (the target can shut down).
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connections } from '../../loadgen/connections.js';

/** A target that counts its open connections; close() resolves only when none is left. @param {string} host */
async function startTarget(host) {
  const server = http.createServer((req, res) => res.end('ok'));
  let open = 0;
  server.on('connection', (socket) => {
    open += 1;
    socket.on('close', () => (open -= 1));
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    open: () => open,
    /** @param {number} timeoutMs */
    close: (timeoutMs) =>
      Promise.race([
        new Promise((resolve) => server.close(() => resolve('closed'))),
        sleep(timeoutMs).then(() => {
          server.closeAllConnections();
          return 'connections left open';
        }),
      ]),
  };
}

/** @param {() => boolean} done @param {string} what */
async function until(done, what) {
  for (let i = 0; i < 200 && !done(); i++) await sleep(10);
  assert.ok(done(), what);
}

test('pre-opened connections, some never used, are all closed by close()', async () => {
  const target = await startTarget('127.0.0.1');
  const connections = new Connections(target.origin, 100, { damped: true });
  await connections.preopen(10, { waitMs: 2000 });
  await until(() => target.open() === 10, `10 connections open (${target.open()})`);
  assert.equal(connections.opened, 10);
  await connections.close();
  assert.equal(await target.close(2000), 'closed');
});

test('a pre-opened connection no request takes is closed after the keep-alive timeout', async () => {
  const target = await startTarget('127.0.0.1');
  const connections = new Connections(target.origin, 100, { damped: true, keepAliveTimeoutMs: 200 });
  await connections.preopen(3, { waitMs: 2000 });
  await until(() => target.open() === 3, 'three open');
  await until(() => target.open() === 0, `closed when unused (${target.open()} open)`);
  await connections.close();
  assert.equal(await target.close(2000), 'closed');
});

test('pre-opens to an IPv6 literal', async (t) => {
  const probe = http.createServer();
  const listening = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => resolve(true));
  });
  probe.close();
  if (!listening) {
    t.skip('this machine has no IPv6 loopback (::1): cannot test IPv6 literals here');
    return;
  }
  const target = await startTarget('::1');
  const connections = new Connections(target.origin, 100, { damped: true });
  await connections.preopen(3, { waitMs: 2000 });
  await until(() => target.open() === 3, `three open to [::1] (${target.open()})`);
  await connections.close();
  assert.equal(await target.close(2000), 'closed');
});

test('a run stopped before it began pre-opens nothing', async () => {
  const target = await startTarget('127.0.0.1');
  const connections = new Connections(target.origin, 100, { damped: true });
  await connections.preopen(5, { waitMs: 2000, signal: AbortSignal.abort() });
  assert.equal(connections.opened, 0);
  assert.equal(target.open(), 0);
  await connections.close();
  assert.equal(await target.close(2000), 'closed');
});
