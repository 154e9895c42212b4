// One run's state (Load: connections, statistics, requests in flight) and one request in flight
// (Exchange: undici's dispatch handler). The hot path does no per-request work it can avoid: headers
// are a flat list copied from a template, each request is one small handler object driven by undici's
// dispatch callbacks (no promise, no closure), and it is handed to the recorder as plain numbers.
import { Connections } from './connections.js';
import { drawIds, headerTemplate } from './ids.js';
import { createStats } from './stats.js';
import { REQUEST_ERROR } from '../core/reason-codes.js';

/**
 * @typedef {object} LoadOptions
 * @property {string} url
 * @property {string} method
 * @property {Record<string, string>} headers
 * @property {string | undefined} body
 * @property {number} timeoutMs
 * @property {number} connections at most this many keep-alive connections, opened as needed
 * @property {number | undefined} requests stop after this many
 * @property {number | undefined} durationMs stop sending after this long
 * @property {number} parallel closed model: requests in flight
 * @property {number | undefined} rate open model: requests per second
 * @property {number} [rampMs] open model: the rate rises linearly from 0 to `rate` over this long
 * @property {number} [warmupMs] load sent for this long before the measured load, on the same connections,
 *   and never recorded
 * @property {string} correlationHeader
 */

/** @param {unknown} err */
export function errorKind(err) {
  const e = /** @type {any} */ (err);
  const code = e?.code ?? e?.cause?.code;
  if (
    e?.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return REQUEST_ERROR.TIMEOUT;
  if (code === 'ECONNREFUSED') return REQUEST_ERROR.REFUSED;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return REQUEST_ERROR.RESET;
  return String(code ?? e?.name ?? 'error').toLowerCase();
}

/**
 * @typedef {object} LoadHooks
 * @property {(correlationId: string, startedAtMs: number, durationMs: number, status: number,
 *   error: string | null) => Promise<void> | undefined} record every request, as it completes;
 *   `startedAtMs` is the wall-clock due (open model) or send (closed model) time since 1970. A
 *   promise means "wait before sending more" (the recorder's back-pressure).
 * @property {AbortSignal} [signal]
 * @property {(stats: import('./stats.js').Stats, elapsedMs: number) => void} [onProgress]
 */

/** One request in flight: undici's dispatch handler interface, methods on the prototype. */
export class Exchange {
  /** @param {Load} load @param {number} dueAt performance.now() of the intended send @param {string} id */
  constructor(load, dueAt, id) {
    this.load = load;
    this.dueAt = dueAt;
    this.id = id;
    /** When the generator took the request: a free connection sends it now, else it waits for one. */
    this.takenAt = performance.now();
    // Until undici writes it (onConnect): a request that fails before then counts as sent when taken.
    this.sentAt = this.takenAt;
    /** @type {import('undici').Client | undefined} set by Connections */
    this.client = undefined;
    this.status = 0;
  }

  onConnect() {
    // Called by undici just before it writes the request: the real send time.
    this.sentAt = performance.now();
  }

  /** @param {number} status */
  onHeaders(status) {
    this.status = status;
    return true;
  }

  onData() {
    return true;
  }

  onComplete() {
    this.load.done(this, null);
  }

  /** @param {Error} err */
  onError(err) {
    this.load.done(this, err);
  }
}

/** The state of one run: the connections, the statistics, what is in flight. */
export class Load {
  /**
   * @param {LoadOptions} options @param {LoadHooks} hooks
   * @param {Connections} [connections] kept open from a warm-up; made here when not given
   */
  constructor(options, hooks, connections) {
    const target = new URL(options.url);
    this.options = options;
    this.hooks = hooks;
    this.path = `${target.pathname}${target.search}`;
    this.connections =
      connections ?? new Connections(target.origin, options.connections, { damped: Boolean(options.rate) });
    this.headers = headerTemplate(options.headers, options.correlationHeader);
    this.stats = createStats();
    this.clockStart = performance.now();
    // Wall-clock time of a performance.now() reading: one Date.now() for the whole run.
    this.epochOffset = Date.now() - this.clockStart;
    this.deadline = options.durationMs !== undefined ? this.clockStart + options.durationMs : Infinity;
    this.sent = 0;
    this.inFlight = 0;
    /** Open model: the recorder asked to wait; sending resumes when this settles. */
    /** @type {Promise<void> | undefined} */
    this.recordWait = undefined;
    /** @type {(exchange: Exchange) => void} called when a request completed */
    this.onDone = () => {};
  }

  more() {
    return (
      !this.hooks.signal?.aborted &&
      (this.options.requests === undefined || this.sent < this.options.requests) &&
      performance.now() < this.deadline
    );
  }

  /** @param {number} dueAt */
  send(dueAt) {
    this.sent += 1;
    this.inFlight += 1;
    const { id, headers } = drawIds(this.headers, dueAt + this.epochOffset);
    const exchange = new Exchange(this, dueAt, id);
    this.connections.dispatch(
      {
        path: this.path,
        method: /** @type {any} */ (this.options.method),
        headers,
        body: this.options.body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      },
      /** @type {any} */ (exchange),
    );
  }

  /** @param {Exchange} exchange @param {Error | null} err */
  done(exchange, err) {
    this.inFlight -= 1;
    // undici fails all of a connection's requests in one loop and must not be handed a new one
    // meanwhile (it asserts so): after an error the connection is reused a microtask later.
    if (err) queueMicrotask(() => this.connections.release(exchange));
    else this.connections.release(exchange);
    const end = performance.now();
    const durationMs = end - exchange.dueAt;
    const status = err ? 0 : exchange.status;
    const error = err ? errorKind(err) : null;
    this.stats.record(durationMs, status, error);
    const startedAtMs = exchange.dueAt + this.epochOffset;
    // While the recorder has the generator wait, no loop sends (the bound holds for all of them).
    const wait = this.hooks.record(exchange.id, startedAtMs, durationMs, status, error) ?? this.recordWait;
    if (wait) this.waitThen(wait, exchange);
    else this.onDone(exchange);
  }

  /** @param {Promise<void>} wait @param {Exchange} exchange */
  waitThen(wait, exchange) {
    this.recordWait = wait;
    wait.then(
      () => {
        if (this.recordWait === wait) this.recordWait = undefined;
        this.onDone(exchange);
      },
      // The recorder reports its own failure at the end; the load stops waiting for it.
      () => {
        if (this.recordWait === wait) this.recordWait = undefined;
        this.onDone(exchange);
      },
    );
  }
}
