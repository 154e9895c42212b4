// The drain's intake between the network and PostgreSQL: messages in, router requests out through
// the buffered PostgreSQL sink (batches of COPY through the page writer, idempotent, retried with
// backoff). The bound is enforced here, before the sink's own: when the buffer is full the HTTP
// handler answers 503 and the TCP servers stop reading, so the syslog agent keeps (and resends)
// what we cannot take and nothing is dropped silently. Counters feed /metrics and /healthz.
import { EventEmitter } from 'node:events';
import { createPageWriter } from '../../../exporters/postgres/page-writer.js';
import { createPostgresSink } from '../../../exporters/postgres/sink.js';
import { routerRequestFromSyslog } from './records.js';

/** A batch smaller than the sink's 5000 rows waits at most this long. */
const FLUSH_INTERVAL_MS = 250;
const BATCH_ROWS = 5000;
/**
 * A write waits this long for the migrations, then fails (and is retried with backoff): while
 * PostgreSQL is away at startup they keep retrying, and a write that waited without limit would
 * leave the drain reporting ok while it refuses everything.
 */
const SCHEMA_WAIT_MS = 5000;

/**
 * The migrations' outcome, or 'pending' after `ms`.
 * @param {Promise<boolean>} schemaReady @param {number} ms
 * @returns {Promise<boolean | 'pending'>}
 */
async function schemaOutcome(schemaReady, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const pending = new Promise((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([schemaReady, /** @type {Promise<'pending'>} */ (pending)]);
  } finally {
    clearTimeout(timer);
  }
}

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
 */

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {Promise<boolean>} [options.schemaReady] writes wait for the migrations
 * @param {number} options.maxBuffered router requests held at most
 * @param {string} [options.correlationField]
 * @param {import('pino').Logger} options.log
 * @param {DrainMetrics} [options.metrics]
 * @param {import('../../../core/retry.js').BackoffOptions} [options.backoff]
 */
export function createDrainReceiver({ pool, schemaReady, maxBuffered, correlationField, log, metrics, backoff }) {
  /** @type {DrainCounts} */
  const counts = { accepted: 0, stored: 0, inserted: 0, rejected: {}, dropped: {}, refused: 0, unauthorized: 0 };
  const events = new EventEmitter();
  /** @type {Date | undefined} */
  let lastStoredAt;
  let closed = false;
  let schemaInPlace = false;
  const writeRouterPage = createPageWriter(pool);
  const sink = createPostgresSink({
    pool,
    log,
    // The drain's own bound (checked before taking a message) is the one that holds; the sink's
    // would drop the oldest, which never happens below it plus the bodies in flight.
    maxBuffered: maxBuffered * 4,
    batchRows: BATCH_ROWS,
    flushIntervalMs: FLUSH_INTERVAL_MS,
    backoff,
    writePage: async (page) => {
      const schema = schemaInPlace || !schemaReady ? true : await schemaOutcome(schemaReady, SCHEMA_WAIT_MS);
      if (schema === 'pending') throw new Error('the schema is not in place yet (migrations running or retrying)');
      if (!schema) throw new Error('shutting down before the schema was ready');
      const inserted = await writeRouterPage({ ...page, countOnly: !metrics });
      counts.stored += page.records.length;
      counts.inserted += inserted.count;
      lastStoredAt = new Date();
      metrics?.count('stored', '', page.records.length);
      metrics?.observeRouterRequests(inserted.records);
      return inserted;
    },
    onChange: ({ pending }) => {
      metrics?.buffered(pending);
      if (pending < maxBuffered) events.emit('room');
    },
  });

  // Written at once, not after the backoff the writes that failed waiting for it ran up.
  void schemaReady?.then((ok) => {
    schemaInPlace = ok;
    if (ok) void sink.flush({ force: true });
  });

  /** @param {'rejected' | 'dropped'} outcome @param {string} reason @param {number} [n] */
  function tally(outcome, reason, n = 1) {
    counts[outcome][reason] = (counts[outcome][reason] ?? 0) + n;
    metrics?.count(outcome, reason, n);
  }

  return {
    /** Room for this many more records. */
    get room() {
      return closed ? 0 : Math.max(0, maxBuffered - sink.pending);
    },
    /**
     * Parses and buffers messages. The caller checks `room` first (HTTP) or stops reading when it
     * is 0 (TCP): a body may take the buffer past the limit by its own size, never more.
     * @param {string[]} messages
     */
    offer(messages) {
      /** @type {import('../../../core/types.js').RouterRequest[]} */
      const records = [];
      for (const text of messages) {
        const result = routerRequestFromSyslog(text, { correlationField });
        if (result.ok) records.push(result.record);
        else if (result.ignored) tally('dropped', result.reason);
        else {
          tally('rejected', result.reason);
          log.debug({ reason: result.reason, message: text.slice(0, 300) }, 'drain: message rejected');
        }
      }
      sink.write(records);
      counts.accepted += records.length;
      metrics?.count('accepted', '', records.length);
      if (sink.pending >= BATCH_ROWS) void sink.flush();
      return records.length;
    },
    /** A frame that never became a message (TCP framing). @param {string} reason */
    rejectFrame(reason) {
      tally('rejected', reason);
    },
    /** Messages answered 503. @param {number} n */
    refuse(n) {
      counts.refused += n;
      metrics?.count('refused', 'buffer_full', n);
    },
    unauthorized() {
      counts.unauthorized += 1;
      metrics?.count('unauthorized', '', 1);
    },
    /** Calls `listener` whenever a write made room. @param {() => void} listener */
    onRoom(listener) {
      events.on('room', listener);
    },
    /**
     * Resolves true as soon as there is room, false after `timeoutMs` without (or once closed).
     * @param {number} timeoutMs
     */
    waitForRoom(timeoutMs) {
      return new Promise((resolve) => {
        const done = (/** @type {boolean} */ ok) => {
          clearTimeout(timer);
          events.off('room', onRoom);
          resolve(ok);
        };
        const onRoom = () => {
          if (!closed && maxBuffered - sink.pending > 0) done(true);
        };
        const timer = setTimeout(() => done(false), timeoutMs);
        events.on('room', onRoom);
      });
    },
    /** Writes what is left (once more, ignoring the backoff); what still cannot be written is counted. */
    async close() {
      if (closed) return;
      closed = true;
      await sink.close();
      if (sink.pending > 0) tally('dropped', 'shutdown', sink.pending);
    },
    /** For /healthz. */
    state() {
      const overflow = sink.dropped ? { overflow: sink.dropped } : {};
      return {
        status: sink.lastError ? 'failing' : 'ok',
        buffered: sink.pending,
        maxBuffered,
        ...counts,
        rejected: { ...counts.rejected },
        dropped: { ...counts.dropped, ...overflow },
        lastStoredAt: lastStoredAt?.toISOString() ?? null,
        lastError: sink.lastError?.message ?? null,
      };
    },
  };
}

/** @typedef {ReturnType<typeof createDrainReceiver>} DrainReceiver */
