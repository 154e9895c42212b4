// The server's TCP port: the one recorded in the data directory while it is free, else a new free one.
import net from 'node:net';
import { freePort } from '../../../core/ports.js';
import { recordedPort } from './data-dir.js';

/** The recorded port when it is free, else a new free one (recorded by the caller). @param {string} dataDir */
export async function usablePort(dataDir) {
  const recorded = recordedPort(dataDir);
  if (recorded && (await isFree(recorded))) return recorded;
  return freePort();
}

/** @param {number} port */
function isFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
