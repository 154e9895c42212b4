// Keep-alive connections to the target, opened as the load needs them up to a maximum, one
// request at a time on each (like autocannon and wrk). A request that finds every connection busy
// waits in a queue here, not in undici, so its send time is the moment it is written.
//
// Growth can be damped (open model): at most one new connection every GROWTH_INTERVAL_MS, and
// none while another is connecting. undici's Pool opens one per waiting request, so a short
// hiccup at a high rate would open every allowed connection for good, more than a local target
// serves well. Damped, a sustained need is still met soon.
import { setTimeout as sleep } from 'node:timers/promises';
import { buildConnector, Client } from 'undici';

export const GROWTH_INTERVAL_MS = 10;

/**
 * @typedef {object} Exchange an undici dispatch handler that reports back when it is done
 * @property {Client | undefined} client the connection it was sent on
 */

export class Connections {
  /**
   * @param {string} origin @param {number} max
   * @param {{ damped: boolean, keepAliveTimeoutMs?: number }} options
   */
  constructor(origin, max, { damped, keepAliveTimeoutMs = 30_000 }) {
    this.origin = origin;
    this.max = max;
    this.damped = damped;
    this.keepAliveTimeoutMs = keepAliveTimeoutMs;
    /** @type {Client[]} */
    this.clients = [];
    /** @type {Client[]} */
    this.idle = [];
    /** New connections still connecting. */
    /** @type {Set<Client>} */
    this.connecting = new Set();
    /** @type {Array<[import('undici').Dispatcher.DispatchOptions, any]>} */
    this.queue = [];
    this.queueHead = 0;
    this.nextGrowthAt = 0;
    /** @type {NodeJS.Timeout | undefined} */
    this.growthTimer = undefined;
    /** Pre-opened sockets not yet handed to their connection. @type {Set<import('node:net').Socket>} */
    this.unused = new Set();
    this.closed = false;
    /** Opens sockets as undici's own clients do; one for every connection. */
    this.connector = buildConnector({});
  }

  /** Connections opened so far. */
  get opened() {
    return this.clients.length;
  }

  /**
   * @param {import('undici').Dispatcher.DispatchOptions} options
   * @param {Exchange & import('undici').Dispatcher.DispatchHandler} exchange
   */
  dispatch(options, exchange) {
    this.queue.push([options, exchange]);
    this.pump();
  }

  /**
   * The exchange's request completed (or failed): its connection takes the next waiting request.
   * @param {Exchange} exchange
   */
  release(exchange) {
    this.idle.push(/** @type {Client} */ (exchange.client));
    this.pump();
  }

  /** Starts waiting requests on idle connections, or on new ones while allowed. */
  pump() {
    while (this.queueHead < this.queue.length) {
      const client = this.idle.pop() ?? this.grow();
      if (!client) return;
      const [options, exchange] = this.queue[this.queueHead];
      this.queue[this.queueHead++] = /** @type {any} */ (undefined);
      exchange.client = client;
      client.dispatch(options, exchange);
    }
    this.queue.length = 0;
    this.queueHead = 0;
  }

  /** A new connection, when allowed now; undefined when the request must wait. */
  grow() {
    if (this.clients.length >= this.max) return undefined;
    if (this.damped) {
      const now = performance.now();
      if (this.connecting.size > 0) return undefined; // pump() runs again when it has connected
      if (now < this.nextGrowthAt) {
        this.growthTimer ??= setTimeout(() => {
          this.growthTimer = undefined;
          this.pump();
        }, this.nextGrowthAt - now);
        return undefined;
      }
      this.nextGrowthAt = now + GROWTH_INTERVAL_MS;
    }
    const client = this.newClient(undefined);
    this.connecting.add(client);
    const connected = () => {
      this.connecting.delete(client);
      this.pump();
    };
    client.once('connect', connected).once('connectionError', connected);
    return client;
  }

  /**
   * Opens up to `count` connections at once, each ready for a request as soon as it is connected;
   * resolves when all have connected or failed (a request on a failed one connects as usual), or
   * after `waitMs`, or on `signal`: the schedule must not wait long for a slow or absent target.
   * @param {number} count @param {{ waitMs: number, signal?: AbortSignal }} options
   */
  async preopen(count, { waitMs, signal }) {
    if (signal?.aborted) return;
    const { protocol, hostname, port } = new URL(this.origin);
    // URL keeps an IPv6 literal's brackets; the socket wants the bare address (as undici does).
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    const params = { protocol, hostname: host, host, port: port || (protocol === 'https:' ? '443' : '80') };
    const wanted = Math.max(0, Math.min(count, this.max) - this.clients.length);
    const opening = Array.from(
      { length: wanted },
      () =>
        new Promise((resolve) =>
          this.connector(/** @type {any} */ (params), (err, socket) => {
            if (err) return resolve(undefined);
            if (this.closed) socket?.destroy();
            else this.idle.push(this.newClient(/** @type {import('node:net').Socket} */ (socket)));
            resolve(undefined);
          }),
        ),
    );
    const timer = new AbortController();
    await Promise.race([
      Promise.all(opening),
      sleep(waitMs, undefined, { signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal }).catch(
        () => {},
      ),
    ]);
    timer.abort();
    this.pump();
  }

  /**
   * A connection to the origin; with a socket already connected, undici takes that one first. A
   * pre-opened socket no request has taken is closed after the keep-alive timeout, or by close().
   * @param {import('node:net').Socket | undefined} socket
   */
  newClient(socket) {
    let ready = socket;
    /** @type {NodeJS.Timeout | undefined} */
    let unusedFor;
    if (ready) {
      const unused = ready;
      this.unused.add(unused);
      unusedFor = setTimeout(() => {
        this.unused.delete(unused);
        unused.destroy();
      }, this.keepAliveTimeoutMs).unref();
    }
    const client = new Client(this.origin, {
      keepAliveTimeout: this.keepAliveTimeoutMs,
      pipelining: 1,
      connect: (options, callback) => {
        const first = ready;
        ready = undefined;
        clearTimeout(unusedFor);
        if (!first || first.destroyed) return this.connector(options, callback);
        this.unused.delete(first);
        // As from a connector: later, never inside undici's own call.
        queueMicrotask(() => callback(null, first));
        return undefined;
      },
    });
    this.clients.push(client);
    return client;
  }

  close() {
    this.closed = true;
    clearTimeout(this.growthTimer);
    // Pre-opened sockets no request took are not undici's yet: its close() does not reach them.
    for (const socket of this.unused) socket.destroy();
    this.unused.clear();
    return Promise.all(this.clients.map((client) => client.close()));
  }
}
