// The drain's intake between the network and the pipeline: messages in, router requests out to the
// page path of push sources (pipeline/pushed-pages.js: batches of COPY through the page writer,
// idempotent, retried with backoff). The bound is enforced here, before the intake's own: when the
// buffer is full the HTTP handler answers 503 and the TCP servers stop reading, so the syslog agent
// keeps (and resends) what we cannot take and nothing is dropped silently. Counters feed /metrics
// and /healthz.
import { EventEmitter } from 'node:events';
import { DRAIN } from '../../../core/reason-codes.js';
import { DRAIN_BATCH_ROWS } from '../../../core/tunables.js';
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
 * @property {(inserted: import('../../../core/types.js').RouterRequestSets) => void} observeRouterRequests the
 *   router requests newly stored
 */

/**
 * @param {object} options
 * @param {import('../../../core/types.js').OpenIntake} options.openIntake where router requests go
 * @param {number} options.maxBuffered router requests held at most
 * @param {string} [options.correlationField]
 * @param {import('pino').Logger} options.log
 * @param {DrainMetrics} [options.metrics]
 */
export function createDrainReceiver({ openIntake, maxBuffered, correlationField, log, metrics }) {
  /** @type {DrainCounts} */
  const counts = { accepted: 0, stored: 0, inserted: 0, rejected: {}, dropped: {}, refused: 0, unauthorized: 0 };
  const events = new EventEmitter();
  const stored = { at: /** @type {Date | undefined} */ (undefined) };
  let closed = false;
  const intake = openIntake({
    // The drain's own bound (checked before taking a message) is the one that holds; the intake's
    // would drop the oldest, which never happens below it plus the bodies in flight.
    maxBuffered: maxBuffered * 4,
    observe: Boolean(metrics),
    onStored: (records, inserted, observed) => {
      counts.stored += records;
      counts.inserted += inserted.count;
      stored.at = new Date();
      metrics?.count('stored', '', records);
      if (observed) metrics?.observeRouterRequests(observed);
    },
    onPending: (pending) => {
      metrics?.buffered(pending);
      if (pending < maxBuffered) events.emit('room');
    },
  });

  /** @param {'rejected' | 'dropped'} outcome @param {string} reason @param {number} [n] */
  function tally(outcome, reason, n = 1) {
    counts[outcome][reason] = (counts[outcome][reason] ?? 0) + n;
    metrics?.count(outcome, reason, n);
  }
  const room = () => (closed ? 0 : Math.max(0, maxBuffered - intake.pending));
  /** A parsed message with a value its column cannot hold. @param {Error} error */
  const leftOut = (error) => (tally('rejected', DRAIN.BAD_VALUE), log.warn({ reason: error.message }, 'not stored'));

  return {
    /** Closed (shutting down): nothing more is taken. */
    get closed() {
      return closed;
    },
    /** Room for this many more records. */
    get room() {
      return room();
    },
    /**
     * Parses and buffers messages. The caller checks `room` first (HTTP, before each slice of a body)
     * or stops reading when it is 0 (TCP): a slice or a chunk may take the buffer past the limit by
     * its own size, never more.
     * @param {Iterable<string>} messages
     */
    offer(messages) {
      // Each record is encoded as soon as it is parsed: none outlives the next message's parse.
      const accepted = intake.write(parseMessages(messages, { correlationField, tally, log }), leftOut);
      counts.accepted += accepted;
      metrics?.count('accepted', '', accepted);
      if (intake.pending >= DRAIN_BATCH_ROWS) void intake.flush();
      return accepted;
    },
    /** A frame that never became a message (TCP framing). @param {string} reason */
    rejectFrame: (reason) => tally('rejected', reason),
    /** Messages answered 503. @param {number} n */
    refuse: (n) => ((counts.refused += n), metrics?.count('refused', DRAIN.BUFFER_FULL, n)),
    unauthorized: () => ((counts.unauthorized += 1), metrics?.count('unauthorized', '', 1)),
    /** Calls `listener` whenever a write made room. @param {() => void} listener */
    onRoom: (listener) => events.on('room', listener),
    /**
     * Resolves true as soon as there is room, false after `timeoutMs` without (or once closed).
     * @param {number} timeoutMs
     */
    waitForRoom: (timeoutMs) => waitForRoom(events, room, timeoutMs),
    /** Writes what is left (once more, ignoring the backoff); what still cannot be written is counted. */
    async close() {
      if (closed) return;
      closed = true;
      await intake.close();
      if (intake.pending > 0) tally('dropped', DRAIN.SHUTDOWN, intake.pending);
    },
    /** For /healthz. */
    state: () => drainState(intake, counts, maxBuffered, stored.at),
  };
}

/**
 * @param {Iterable<string>} messages
 * @param {{ correlationField: string | undefined, tally: (outcome: 'rejected' | 'dropped', reason: string) => void,
 *   log: import('pino').Logger }} options
 * @returns {Generator<import('../../../core/types.js').RouterRequest>}
 */
function* parseMessages(messages, { correlationField, tally, log }) {
  for (const text of messages) {
    const result = routerRequestFromSyslog(text, { correlationField });
    if (result.ok) yield result.record;
    else if (result.ignored) tally('dropped', result.reason);
    else {
      tally('rejected', result.reason);
      log.debug({ reason: result.reason, message: text.slice(0, 300) }, 'drain: message rejected');
    }
  }
}

/**
 * @param {EventEmitter} events @param {() => number} room @param {number} timeoutMs
 * @returns {Promise<boolean>}
 */
function waitForRoom(events, room, timeoutMs) {
  return new Promise((resolve) => {
    const done = (/** @type {boolean} */ ok) => {
      clearTimeout(timer);
      events.off('room', onRoom);
      resolve(ok);
    };
    const onRoom = () => {
      if (room() > 0) done(true);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    events.on('room', onRoom);
  });
}

/**
 * @param {import('../../../core/types.js').Intake} intake @param {DrainCounts} counts
 * @param {number} maxBuffered @param {Date | undefined} lastStoredAt
 */
function drainState(intake, counts, maxBuffered, lastStoredAt) {
  const overflow = intake.dropped ? { overflow: intake.dropped } : {};
  return {
    status: intake.lastError ? 'failing' : 'ok',
    buffered: intake.pending,
    maxBuffered,
    ...counts,
    rejected: { ...counts.rejected },
    dropped: { ...counts.dropped, ...overflow },
    lastStoredAt: lastStoredAt?.toISOString() ?? null,
    lastError: intake.lastError?.message ?? null,
  };
}

/** @typedef {ReturnType<typeof createDrainReceiver>} DrainReceiver */
