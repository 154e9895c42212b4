// The drain's intake between the network and the pipeline: messages in, router requests out to the
// page path of push sources (pipeline/pushed-pages.js: batches of COPY through the page writer,
// idempotent, retried with backoff). The bound is enforced here, before the intake's own: when the
// buffer is full the HTTP handler answers 503 and the TCP servers stop reading, so the syslog agent
// keeps (and resends) what we cannot take and nothing is dropped silently. Counters feed /metrics
// and /healthz.
import { EventEmitter } from 'node:events';
import { DRAIN } from '../../../core/reason-codes.js';
import { DRAIN_BATCH_ROWS } from '../../../core/tunables.js';
import { MessageSlice } from './rfc5424.js';
import { routerRequestsOf } from './records.js';

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
 * @property {(inserted: import('../../../core/types.js').PaasmonRecord[]) => void} observeRouterRequests
 *
 * The parse on another thread (pipeline/drain-parse.js): batches answered in order.
 * @typedef {object} DrainParser
 * @property {(slice: MessageSlice) => void} parse hands messages over (answered through `onParsed`)
 * @property {() => Promise<void>} close parses what was handed over, waits for the answers, stops
 *
 * @typedef {object} ParsedMessages
 * @property {import('../../../core/types.js').EncodedRows} encoded the router requests, encoded for COPY
 * @property {(() => import('../../../core/types.js').PaasmonRecord[]) | undefined} observeRows for the metrics
 * @property {{ outcome: 'rejected' | 'dropped', reason: string, n: number }[]} skipped messages left out, by reason
 * @property {{ reason: string, message: string }[]} samples some rejected messages (debug)
 * @property {string[]} unusable why each row left out at encoding was
 *
 * @typedef {(options: { correlationField?: string, observe: boolean, log: import('pino').Logger,
 *   onParsed: (parsed: ParsedMessages, messages: number) => void }) => DrainParser} OpenParser
 */

/** Messages handed to the parse thread and not parsed yet, at most (give or take a slice or a read each). */
export const PARSE_AHEAD = 4000;

/**
 * @param {object} options
 * @param {import('../../../core/types.js').OpenIntake} options.openIntake where router requests go
 * @param {number} options.maxBuffered router requests held at most
 * @param {string} [options.correlationField]
 * @param {import('pino').Logger} options.log
 * @param {DrainMetrics} [options.metrics]
 * @param {OpenParser} [options.openParser] parse on another thread (else on this one, as messages come)
 */
export function createDrainReceiver({ openIntake, maxBuffered, correlationField, log, metrics, openParser }) {
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
    onStored: (records, inserted) => {
      counts.stored += records;
      counts.inserted += inserted.count;
      stored.at = new Date();
      metrics?.count('stored', '', records);
      metrics?.observeRouterRequests(inserted.records);
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
  const parser = openParser?.({
    correlationField,
    observe: Boolean(metrics),
    log,
    onParsed: (parsed, messages) => ((parsing -= messages), take(parsed)),
  });
  /** Messages handed to the parse thread and not answered yet: they count against the bound. */
  let parsing = 0;
  const room = () => (closed ? 0 : Math.max(0, Math.min(maxBuffered - intake.pending, PARSE_AHEAD) - parsing));
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
      if (parser && messages instanceof MessageSlice) return handOver(messages);
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
      await parser?.close();
      await intake.close();
      if (intake.pending > 0) tally('dropped', DRAIN.SHUTDOWN, intake.pending);
    },
    /** For /healthz. */
    state: () => drainState(intake, counts, maxBuffered, stored.at),
  };

  /** Sends messages to the parse thread; their rows join the intake once parsed. @param {MessageSlice} slice */
  function handOver(slice) {
    parsing += slice.count;

    parser?.parse(slice);
    return slice.count;
  }

  /** A parsed batch into the intake, its left-out messages counted. @param {ParsedMessages} parsed */
  function take({ encoded, observeRows, skipped, samples, unusable }) {
    for (const { outcome, reason, n } of skipped) tally(outcome, reason, n);
    for (const { reason, message } of samples) log.debug({ reason, message }, 'drain: message rejected');
    for (const reason of unusable) leftOut(new Error(reason));
    intake.writeEncoded('router_request', encoded, observeRows);
    counts.accepted += encoded.rows;
    metrics?.count('accepted', '', encoded.rows);
    if (intake.pending >= DRAIN_BATCH_ROWS) void intake.flush();
    if (room() > 0) events.emit('room');
  }
}

/**
 * @param {Iterable<string>} messages
 * @param {{ correlationField: string | undefined, tally: (outcome: 'rejected' | 'dropped', reason: string) => void,
 *   log: import('pino').Logger }} options
 */
function parseMessages(messages, { correlationField, tally, log }) {
  return routerRequestsOf(messages, {
    correlationField,
    onSkip(outcome, reason, text) {
      tally(outcome, reason);
      if (outcome === 'rejected') log.debug({ reason, message: text.slice(0, 300) }, 'drain: message rejected');
    },
  });
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
