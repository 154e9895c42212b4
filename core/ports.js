// A TCP port free on the loopback interface: for the embedded server, the demo's processes, tests.
import net from 'node:net';

/** A TCP port free on 127.0.0.1 right now. @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });
}
