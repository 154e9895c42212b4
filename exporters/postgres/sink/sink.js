// Sink `postgres`: buffers records of any kind and writes them in batches through the page writer
// (re-writing a batch never duplicates). While the database is unreachable the records wait in a
// bounded buffer and the write is retried with backoff; beyond the bound the oldest are dropped
// and counted. The collector's samples and the load generator's requests both go through here.
// Its three policies have a module each: buffer.js (bound), retry-schedule.js (backoff), writes.js
// (writes in flight).
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_BACKOFF } from '../../../core/retry.js';
import { createPageWriter } from './page-writer.js';
import { createSinkBuffer } from './buffer.js';
import { createRetrySchedule } from './retry-schedule.js';
import { createWritesInFlight } from './writes.js';

/** @typedef {import('../../../core/types.js').PaasmonRecord} PaasmonRecord */
/** @typedef {import('../../../core/types.js').EncodedRows} EncodedRows */
/** @typedef {import('./buffer.js').Entry} Entry */

/**
 * The sink's flush: one write pass at a time (a flush during one joins it), none before the retry is due.
 * @param {object} parts
 * @param {import('./buffer.js').SinkBuffer} parts.buffer
 * @param {ReturnType<typeof createRetrySchedule>} parts.retry
 * @param {ReturnType<typeof createWritesInFlight>} parts.writes
 */
function createFlush({ buffer, retry, writes }) {
  /** @type {Promise<void> | undefined} */
  let flushing;

  /**
   * Writes what is buffered. During a backoff it returns at once, unless `wait` is set: then it
   * waits for the next attempt (back-pressure for a producer that must not drop records).
   * @param {{ force?: boolean, wait?: boolean }} [opts]
   * @returns {Promise<void>}
   */
  async function flush(opts = {}) {
    if (flushing) {
      writes.wake();
      return flushing;
    }
    if (buffer.length === 0) return;
    const delay = retry.msUntilNextAttempt();
    if (delay > 0 && !opts.force) {
      if (!opts.wait) return;
      await sleep(delay);
      return flush(opts);
    }
    flushing = (async () => {
      try {
        await writes.writeAll();
        retry.succeeded();
      } catch (err) {
        retry.failed(/** @type {Error} */ (err), buffer.rows);
      } finally {
        flushing = undefined;
        writes.releaseRoom();
      }
    })();
    return flushing;
  }

  return { flush, isFlushing: () => flushing !== undefined };
}

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {import('pino').Logger} options.log
 * @param {number} options.maxBuffered records kept while the database is down; beyond it the oldest are dropped
 * @param {number} [options.batchRows] rows per write
 * @param {number} [options.maxInFlight] batches written at once (1: in order, one after the other)
 * @param {number} [options.flushIntervalMs] also write on this timer (else only on flush())
 * @param {import('../../../core/retry.js').BackoffOptions} [options.backoff]
 * @param {(event: { pending: number, dropped: number }) => void} [options.onChange]
 * @param {import('../../../core/types.js').PageWriter} [options.writePage]
 * @param {import('./page-writer.js').PostgresMetrics} [options.metrics] counted into by the page writer made here
 */
export function createPostgresSink(options) {
  const { pool, log, maxBuffered, batchRows = 5000, maxInFlight = 1, backoff = DEFAULT_BACKOFF, onChange } = options;
  const buffer = createSinkBuffer({ maxBuffered, batchRows, log });
  const retry = createRetrySchedule({ backoff, log });
  const notify = () => onChange?.({ pending: buffer.rows + writes.writingRows, dropped: buffer.dropped });
  const writePage = options.writePage ?? createPageWriter(pool, options.metrics);
  const writes = createWritesInFlight({ buffer, writePage, maxInFlight, notify });
  const { flush, isFlushing } = createFlush({ buffer, retry, writes });
  let closed = false;

  const timer = options.flushIntervalMs ? setInterval(() => void flush(), options.flushIntervalMs) : undefined;
  timer?.unref();

  return {
    name: 'postgres',
    /** @param {PaasmonRecord[]} records */
    write(records) {
      for (const record of records) buffer.add(record);
      buffer.dropOverflow();
      notify();
    },
    /**
     * Rows already encoded for a binary COPY, written as one page (the load generator's batches).
     * `encoded.onWritten` is called once the page is committed; never for a page dropped, or not
     * yet written when the sink closes.
     * @param {import('../../../core/types.js').RecordKind} kind @param {EncodedRows} encoded
     */
    writeEncoded(kind, encoded) {
      buffer.add({ kind, encoded });
      buffer.dropOverflow();
      notify();
    },
    flush,
    /**
     * Resolves once every buffered batch is being written or written: a producer that calls it
     * when it hands over a batch keeps at most maxInFlight batches in flight and one filling.
     * During an outage it waits out the backoff and retries (back-pressure, nothing dropped).
     */
    async room() {
      while (buffer.length > 0) {
        if (isFlushing()) await writes.nextRoom();
        else await flush({ wait: true });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flush({ force: true });
      if (buffer.rows > 0) log.error({ lost: buffer.rows }, 'postgres: records could not be written before shutdown');
    },
    /** Records waiting to be written (also those of the writes in flight). */
    get pending() {
      return buffer.rows + writes.writingRows;
    },
    /** Records of the writes in flight. */
    get writing() {
      return writes.writingRows;
    },
    /** Batches being written now (at most maxInFlight). */
    get writesInFlight() {
      return writes.writes;
    },
    /** Records written so far. */
    get written() {
      return writes.written;
    },
    /** Records dropped because the buffer was full. */
    get dropped() {
      return buffer.dropped;
    },
    /** The last write error, cleared by a successful write. */
    get lastError() {
      return retry.lastError;
    },
  };
}

/** @typedef {ReturnType<typeof createPostgresSink>} PostgresSink */
