// The load generator: a closed model (P requests always in flight), an open model (R requests per
// second on a fixed schedule, latency measured from the scheduled send time, so a stalled server
// is not hidden), or a fixed count. Every request is recorded; percentiles come from an HDR histogram.
//
// The hot path does no per-request work it can avoid (bench/loadgen.bench.js profile): headers are
// a flat list copied from a template, each request is one small handler object driven by undici's
// dispatch callbacks (no promise, no closure), and it is handed to the recorder as plain numbers.
import { Connections } from './connections.js';
import { drawIds, headerTemplate } from './ids.js';
import { Schedule } from './schedule.js';
import { createStats } from './stats.js';

/** The open model opens, before it starts, the connections answers within this long would need. */
export const PREOPEN_LATENCY_MS = 10;
/** The longest the schedule waits for those connections: workers started together stay together. */
export const PREOPEN_WAIT_MS = 200;

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
    return 'timeout';
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
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
class Exchange {
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
class Load {
  /** @param {LoadOptions} options @param {LoadHooks} hooks */
  constructor(options, hooks) {
    const target = new URL(options.url);
    this.options = options;
    this.hooks = hooks;
    this.path = `${target.pathname}${target.search}`;
    this.connections = new Connections(target.origin, options.connections, { damped: Boolean(options.rate) });
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

/**
 * Closed model: `parallel` loops, each sending its next request when its last one completed.
 * @param {Load} load @returns {Promise<void>}
 */
function closedModel(load) {
  return new Promise((resolve) => {
    load.onDone = () => {
      if (load.more()) load.send(performance.now());
      else if (load.inFlight === 0) resolve();
    };
    for (let i = 0; i < load.options.parallel && load.more(); i++) load.send(performance.now());
    if (load.inFlight === 0) resolve();
  });
}

/**
 * What the open model's schedule did, counted by request index (requests are sent in index order):
 * requests due before sending stopped and those sent; why and when (ms after the start) it
 * stopped; and the full-rate part (after the ramp, if any): the requests due from the ramp's end
 * until sending stopped, how many of them were sent, and over how long (to the stop, or to the
 * last send when that came later).
 * @typedef {object} ScheduleTally
 * @property {number} scheduled @property {number} sent
 * @property {'deadline' | 'requests' | 'signal'} stoppedBy @property {number} stoppedAtMs
 * @property {number} fullRateScheduled @property {number} fullRateSent @property {number} fullRateMs
 */

/**
 * Open model: request i is due at start + i / rate (after a ramp: see schedule.js), whether or not
 * earlier ones returned. Every time the generator wakes up anyway (a response came in) it sends
 * what is due; a timer wakes it at the next due time when nothing else does (at least every
 * millisecond). A request is never sent early, and the delay between due and actual send is
 * measured (send-time error), and, separately, its part before the generator took the request
 * (the rest is waiting for a free connection). Enough connections for answers within
 * PREOPEN_LATENCY_MS at the asked rate (the full rate, also with a ramp) are opened before the
 * first request is due; more are opened as needed up to the maximum; beyond it a request waits for
 * one, and is sent late.
 * @param {Load} load @param {number} rate @returns {Promise<ScheduleTally>}
 */
async function openModel(load, rate) {
  await load.connections.preopen(Math.ceil((rate * PREOPEN_LATENCY_MS) / 1000), {
    waitMs: PREOPEN_WAIT_MS,
    signal: load.hooks.signal,
  });
  // The schedule starts once the connections are open.
  load.clockStart = performance.now();
  load.epochOffset = Date.now() - load.clockStart;
  if (load.options.durationMs !== undefined) load.deadline = load.clockStart + load.options.durationMs;
  const schedule = new Schedule(rate, load.options.rampMs ?? 0);
  const durationMs = load.options.durationMs ?? Infinity;
  const requests = load.options.requests ?? Infinity;
  let next = 0;
  let scheduling = true;
  let lastSentAt = load.clockStart;
  /** @type {ScheduleTally | undefined} */
  let tally;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  /** Sending stops before request `next`, due at `offset`: what was due by then, and what was sent. */
  const stop = (/** @type {number} */ offset) => {
    /** @type {ScheduleTally['stoppedBy']} */
    const stoppedBy =
      offset >= durationMs
        ? 'deadline'
        : next >= requests
          ? 'requests'
          : load.hooks.signal?.aborted
            ? 'signal'
            : 'deadline';
    // The deadline counts what was due before it, sent or not (late at the end: not sent, counted).
    const stoppedAtMs =
      stoppedBy === 'deadline' ? durationMs : stoppedBy === 'requests' ? offset : performance.now() - load.clockStart;
    const scheduled = Math.max(next, Math.min(requests, schedule.dueBefore(stoppedAtMs)));
    const rampRequests = schedule.dueBefore(schedule.rampMs);
    tally = {
      scheduled,
      sent: next,
      stoppedBy,
      stoppedAtMs,
      fullRateScheduled: Math.max(0, scheduled - rampRequests),
      fullRateSent: Math.max(0, next - rampRequests),
      fullRateMs: 0, // known once the last request has been written
    };
  };
  return new Promise((resolve) => {
    const finishIfIdle = () => {
      if (scheduling || load.inFlight > 0 || load.recordWait || !tally) return;
      const lastSendMs = lastSentAt - load.clockStart;
      resolve({ ...tally, fullRateMs: Math.max(0, Math.max(tally.stoppedAtMs, lastSendMs) - schedule.rampMs) });
    };
    /** Sends every request due by now. @returns {number} ms until the next one is due, 0 when none is left */
    const sendDue = () => {
      const now = performance.now();
      for (;;) {
        // The deadline compared in offsets, as dueBefore counts them.
        const offset = schedule.dueOffset(next);
        if (offset >= durationMs || !load.more()) {
          scheduling = false;
          stop(offset);
          clearTimeout(timer);
          finishIfIdle();
          return 0;
        }
        const dueAt = load.clockStart + offset;
        if (dueAt > now) return dueAt - now;
        next += 1;
        load.send(dueAt);
      }
    };
    const tick = () => {
      timer = undefined;
      if (load.recordWait) {
        load.recordWait.then(tick, tick);
        return;
      }
      const wait = sendDue();
      // Timers fire on whole milliseconds, up to one early: wake a little before, then again a
      // millisecond later. No busy wait (setImmediate): spinning took the CPU the target and
      // PostgreSQL needed on a small machine and halved the rate kept.
      if (wait > 0) timer = setTimeout(tick, Math.max(1, wait - 1));
    };
    load.onDone = (exchange) => {
      load.stats.recordSend(exchange.sentAt - exchange.dueAt, exchange.takenAt - exchange.dueAt);
      if (exchange.sentAt > lastSentAt) lastSentAt = exchange.sentAt;
      if (scheduling && !load.recordWait) sendDue();
      finishIfIdle();
    };
    tick();
  });
}

/**
 * @param {LoadOptions} options
 * @param {LoadHooks} hooks
 */
export async function generateLoad(options, hooks) {
  const load = new Load(options, hooks);
  const progress = hooks.onProgress
    ? setInterval(() => hooks.onProgress?.(load.stats, performance.now() - load.clockStart), 1000)
    : undefined;
  /** @type {ScheduleTally | undefined} */
  let schedule;
  try {
    if (options.rate) schedule = await openModel(load, options.rate);
    else await closedModel(load);
  } finally {
    clearInterval(progress);
    await load.connections.close();
  }
  return {
    stats: load.stats,
    /** performance.now() when the load began (open model: the due time of its first request) */
    startedAt: load.clockStart,
    elapsedMs: performance.now() - load.clockStart,
    connectionsOpened: load.connections.opened,
    /** open model only */
    schedule,
  };
}
