// The drain's buffer between the network and PostgreSQL: messages in, RouterRequest records out in
// batches (COPY, idempotent), bounded. When the buffer is full the HTTP handler answers 503 and the
// TCP servers stop reading, so the syslog agent holds (and retries) what we cannot take: nothing is
// dropped silently. Counters feed /metrics and /healthz.
import { EventEmitter } from 'node:events';
import { DEFAULT_BACKOFF, backoffDelay } from '../../retry.js';
import { routerRequestFromSyslog } from './records.js';

/**
 * @typedef {object} DrainCounts
 * @property {number} accepted router requests taken into the buffer
 * @property {number} stored of those, committed to PostgreSQL (new rows or already there)
 * @property {number} inserted of the stored, rows that were new
 * @property {Record<string, number>} rejected unusable messages by reason (not RFC 5424, bad router line, bad frame...)
 * @property {Record<string, number>} dropped messages deliberately not stored, by reason (not_rtr: other log sources)
 * @property {number} refused messages answered 503 because the buffer was full (the agent sends them again)
 * @property {number} unauthorized requests without the right token
 *
 * @typedef {object} DrainMetrics
 * @property {(outcome: string, reason: string, n: number) => void} count
 * @property {(records: number) => void} buffered
 * @property {(rows: any[]) => void} observeRouterRequests
 */

/**
 * @param {object} options
 * @param {(records: import('../router-logs/gorouter.js').RouterRequest[]) => Promise<any[]>} options.write stores a
 *   batch idempotently and returns the rows new in PostgreSQL
 * @param {number} options.maxBuffered records held at most
 * @param {number} [options.batchSize]
 * @param {number} [options.flushIntervalMs] a batch smaller than batchSize waits at most this long
 * @param {string} [options.correlationField]
 * @param {import('pino').Logger} options.log
 * @param {DrainMetrics} [options.metrics]
 * @param {import('../../retry.js').BackoffOptions} [options.backoff]
 */
export function createDrainReceiver({ write, maxBuffered, batchSize = 5000, flushIntervalMs = 250, correlationField, log, metrics, backoff = DEFAULT_BACKOFF }) {
  /** @type {import('../router-logs/gorouter.js').RouterRequest[]} */
  let buffer = [];
  /** @type {DrainCounts} */
  const counts = { accepted: 0, stored: 0, inserted: 0, rejected: {}, dropped: {}, refused: 0, unauthorized: 0 };
  const events = new EventEmitter();
  let failures = 0;
  let nextAttemptAt = 0;
  /** @type {Error | undefined} */
  let lastError;
  /** @type {Date | undefined} */
  let lastStoredAt;
  /** @type {Promise<void> | undefined} */
  let flushing;
  let closed = false;
  const timer = setInterval(() => { void flush(); }, flushIntervalMs);
  timer.unref();

  /** @param {'rejected' | 'dropped'} outcome @param {string} reason @param {number} [n] */
  function tally(outcome, reason, n = 1) {
    counts[outcome][reason] = (counts[outcome][reason] ?? 0) + n;
    metrics?.count(outcome, reason, n);
  }

  async function flushNow() {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, batchSize);
      const inserted = await write(batch);
      buffer = buffer.slice(batch.length);
      counts.stored += batch.length;
      counts.inserted += inserted.length;
      lastStoredAt = new Date();
      metrics?.count('stored', '', batch.length);
      metrics?.observeRouterRequests(inserted);
      metrics?.buffered(buffer.length);
      events.emit('room');
    }
  }

  /** Writes what is buffered unless a write is running or an outage's backoff is not over. @param {{ force?: boolean }} [options] */
  function flush(options = {}) {
    if (flushing) return flushing;
    if (buffer.length === 0 || (!options.force && Date.now() < nextAttemptAt)) return Promise.resolve();
    flushing = (async () => {
      try {
        await flushNow();
        if (failures > 0) log.info({ failures }, 'drain: writing again after an outage');
        failures = 0;
        lastError = undefined;
      } catch (err) {
        lastError = /** @type {Error} */ (err);
        const delay = backoffDelay(failures, { ...backoff, retries: Infinity });
        failures += 1;
        nextAttemptAt = Date.now() + delay;
        log.warn({ err, buffered: buffer.length, retryInMs: delay }, 'drain: write failed; records kept for the next attempt');
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  }

  return {
    /** Room for this many more records. */
    get room() { return closed ? 0 : Math.max(0, maxBuffered - buffer.length); },
    /**
     * Parses and buffers messages. The caller checks `room` first (HTTP) or stops reading when it
     * is 0 (TCP): a body may take the buffer past the limit by its own size, never more.
     * @param {string[]} messages
     */
    offer(messages) {
      let accepted = 0;
      for (const text of messages) {
        const result = routerRequestFromSyslog(text, { correlationField });
        if (result.ok) {
          buffer.push(result.record);
          accepted += 1;
        } else if (result.ignored) {
          tally('dropped', result.reason);
        } else {
          tally('rejected', result.reason);
          log.debug({ reason: result.reason, message: text.slice(0, 300) }, 'drain: message rejected');
        }
      }
      counts.accepted += accepted;
      metrics?.count('accepted', '', accepted);
      metrics?.buffered(buffer.length);
      if (buffer.length >= batchSize) void flush();
      return accepted;
    },
    /** A frame that never became a message (TCP framing). @param {string} reason */
    rejectFrame(reason) { tally('rejected', reason); },
    /** Messages answered 503. @param {number} n */
    refuse(n) { counts.refused += n; metrics?.count('refused', 'buffer_full', n); },
    unauthorized() { counts.unauthorized += 1; metrics?.count('unauthorized', '', 1); },
    /** Calls `listener` whenever a write made room. @param {() => void} listener */
    onRoom(listener) { events.on('room', listener); },
    flush,
    /** Stops the timer and writes what is left (once more, ignoring the backoff). */
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flushing;
      await flush({ force: true });
      if (buffer.length > 0) {
        tally('dropped', 'shutdown', buffer.length);
        log.error({ lost: buffer.length }, 'drain: router requests could not be written before shutdown');
      }
    },
    /** For /healthz. */
    state() {
      return {
        status: lastError ? 'failing' : 'ok',
        buffered: buffer.length,
        maxBuffered,
        ...counts,
        rejected: { ...counts.rejected },
        dropped: { ...counts.dropped },
        lastStoredAt: lastStoredAt?.toISOString() ?? null,
        lastError: lastError?.message ?? null,
      };
    },
  };
}

/** @typedef {ReturnType<typeof createDrainReceiver>} DrainReceiver */
