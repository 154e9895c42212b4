// A TCP proxy that adds network latency: every byte between the client and the target waits half of
// `rttMs()` in each direction, in order, as on a longer path. Put before gorouter (its stand-in), the
// time falls outside the router: in the client's e2e, never in the router's response_time.
import net from 'node:net';
import { once } from 'node:events';

/**
 * Copies `from` to `to`, each chunk `delayMs()` after it came (never overtaking an earlier one);
 * the end follows the last chunk.
 * @param {net.Socket} from @param {net.Socket} to @param {() => number} delayMs
 */
function delayed(from, to, delayMs) {
  /** @type {Array<{ due: number, act: () => void }>} */
  const queue = [];
  const drain = () => {
    while (queue.length && queue[0].due <= Date.now()) /** @type {any} */ (queue.shift()).act();
    if (queue.length) setTimeout(drain, queue[0].due - Date.now());
  };
  /** @param {() => void} act */
  const later = (act) => {
    const last = queue.at(-1)?.due ?? 0;
    queue.push({ due: Math.max(last, Date.now() + delayMs()), act });
    if (queue.length === 1) setTimeout(drain, queue[0].due - Date.now());
  };
  from.on('data', (chunk) => later(() => to.destroyed || to.write(chunk)));
  from.on('end', () => later(() => to.end()));
}

/**
 * @param {string} target `http://host:port` (or host:port) of the server behind the proxy
 * @param {{ rttMs: () => number }} options read per chunk, so a test can change it between rounds
 */
export async function startLatencyProxy(target, { rttMs }) {
  const { hostname, port } = new URL(target.includes('://') ? target : `tcp://${target}`);
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const half = () => rttMs() / 2;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => (socket === client ? upstream : client).destroy());
    }
    delayed(client, upstream, half);
    delayed(upstream, client, half);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
