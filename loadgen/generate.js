// The load generator: a closed model (P requests always in flight), an open model (R requests per
// second on a fixed schedule, latency measured from the scheduled send time, so a stalled server
// is not hidden), or a fixed count. Every request is recorded; percentiles come from an HDR histogram.
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { requestIdHeaders } from './ids.js';
import { createStats } from './stats.js';

/**
 * @typedef {object} LoadOptions
 * @property {string} url
 * @property {string} method
 * @property {Record<string, string>} headers
 * @property {string | undefined} body
 * @property {number} timeoutMs
 * @property {number} connections
 * @property {number | undefined} requests stop after this many
 * @property {number | undefined} durationMs stop sending after this long
 * @property {number} parallel closed model: requests in flight
 * @property {number | undefined} rate open model: requests per second
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
 * @property {(request: import('../core/types.js').LoadgenRequest) => void | Promise<void>} record
 * @property {AbortSignal} [signal]
 * @property {(stats: import('./stats.js').Stats, elapsedMs: number) => void} [onProgress]
 */

/**
 * @param {LoadOptions} options
 * @param {LoadHooks} hooks
 */
export async function generateLoad(options, hooks) {
  const target = new URL(options.url);
  const path = `${target.pathname}${target.search}`;
  const pool = new Pool(target.origin, { connections: options.connections, keepAliveTimeout: 30_000, pipelining: 1 });
  const stats = createStats();
  const wallStart = Date.now();
  const clockStart = performance.now();
  /** Wall-clock time of a performance.now() reading, in whole ms (PostgreSQL keeps microseconds). */
  const wallAt = (/** @type {number} */ t) => new Date(wallStart + (t - clockStart));
  let sent = 0;
  const deadline = options.durationMs !== undefined ? clockStart + options.durationMs : Infinity;
  const more = () =>
    !hooks.signal?.aborted &&
    (options.requests === undefined || sent < options.requests) &&
    performance.now() < deadline;

  /**
   * One request through undici's dispatch API: about 25 % more requests per second than
   * pool.request() here (bench/loadgen.bench.js), the body is drained without being kept.
   * @param {Record<string, string>} idHeaders @returns {Promise<number>} status
   */
  function send(idHeaders) {
    return new Promise((resolve, reject) => {
      let status = 0;
      pool.dispatch(
        {
          path,
          method: /** @type {any} */ (options.method),
          headers: { ...options.headers, ...idHeaders },
          body: options.body,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        },
        {
          onConnect() {},
          onHeaders(statusCode) {
            status = statusCode;
            return true;
          },
          onData() {
            return true;
          },
          onComplete() {
            resolve(status);
          },
          onError: reject,
        },
      );
    });
  }

  /** @param {number} dueAt performance.now() of the intended send */
  async function one(dueAt) {
    sent += 1;
    const { id, headers } = requestIdHeaders(options.correlationHeader);
    let status = 0;
    /** @type {string | null} */
    let error = null;
    try {
      status = await send(headers);
    } catch (err) {
      error = errorKind(err);
    }
    const durationMs = performance.now() - dueAt;
    stats.record(durationMs, status, error);
    await hooks.record({
      kind: 'loadgen_request',
      correlationId: id,
      startedAt: wallAt(dueAt),
      durationMs,
      status,
      error,
    });
  }

  const progress = hooks.onProgress
    ? setInterval(() => hooks.onProgress?.(stats, performance.now() - clockStart), 1000)
    : undefined;
  try {
    if (options.rate) {
      // Open model: request i is due at start + i / rate, whether or not earlier ones returned.
      const interval = 1000 / options.rate;
      /** @type {Set<Promise<void>>} */
      const inFlight = new Set();
      for (let i = 0; more(); i++) {
        const dueAt = clockStart + i * interval;
        if (dueAt >= deadline) break;
        // Never early: timers may fire up to a millisecond before their time.
        for (let wait = dueAt - performance.now(); wait > 0; wait = dueAt - performance.now()) {
          await sleep(Math.max(1, wait));
        }
        const p = one(dueAt).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await Promise.all(inFlight);
    } else {
      // Closed model: P workers, each sends its next request when its last one returned.
      await Promise.all(
        Array.from({ length: options.parallel }, async () => {
          while (more()) await one(performance.now());
        }),
      );
    }
  } finally {
    clearInterval(progress);
    await pool.close();
  }
  return { stats, elapsedMs: performance.now() - clockStart };
}
