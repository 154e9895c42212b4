// The floor under paasmon's generator: undici alone, closed model, the same four id headers
// (fixed values, as autocannon sends them), no ids drawn, no statistics, nothing recorded. Run as a
// process: node undici-loop.js URL CONNECTIONS SECONDS (0 seconds: one request on each connection);
// prints "requests N errors E seconds S" and exits 1 when a request failed.
import { Client } from 'undici';

const [url, connections, seconds] = process.argv.slice(2);
const { origin, pathname, search } = new URL(url);
const path = `${pathname}${search}`;
const headers = [
  'x-correlation-id',
  '0af76519-16cd-43dd-8448-eb211c80319c',
  'traceparent',
  '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  'x-b3-traceid',
  '0af7651916cd43dd8448eb211c80319c',
  'x-b3-spanid',
  'b7ad6b7169203331',
];
const started = performance.now();
const deadline = started + Number(seconds) * 1000;
let requests = 0;
let errors = 0;
let open = Number(connections);

/** One connection, one request at a time, the next one sent as the last completes. @param {Client} client */
function loop(client) {
  let sent = 0;
  const handler = {
    onConnect() {},
    onHeaders() {
      return true;
    },
    onData() {
      return true;
    },
    onComplete() {
      requests += 1;
      next();
    },
    onError() {
      errors += 1;
      // undici must not be handed the next request from inside its own error loop.
      queueMicrotask(next);
    },
  };
  const next = () => {
    if (sent === 0 || performance.now() < deadline) {
      sent += 1;
      client.dispatch({ path, method: 'GET', headers }, handler);
    } else if (--open === 0) {
      const elapsed = (performance.now() - started) / 1000;
      console.log(`requests ${requests} errors ${errors} seconds ${elapsed}`);
      process.exit(errors ? 1 : 0);
    }
  };
  next();
}

for (let i = 0; i < open; i++) loop(new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 }));
