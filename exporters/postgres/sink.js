// Sink `postgres`: buffers records of any kind and writes them in batches through the page writer
// (re-writing a batch never duplicates). While the database is unreachable the records wait in a
// bounded buffer and the write is retried with backoff; beyond the bound the oldest are dropped
// and counted. The collector's samples and the load generator's requests both go through here.
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_BACKOFF, backoffDelay } from '../../core/retry.js';
import { createPageWriter } from './page-writer.js';

/** @typedef {import('../../core/types.js').PaasmonRecord} PaasmonRecord */
/** @typedef {import('../../core/types.js').EncodedRows} EncodedRows */
/**
 * A buffered record, or rows already encoded for a binary COPY (written as one page).
 * @typedef {PaasmonRecord | { kind: import('../../core/types.js').RecordKind, encoded: EncodedRows }} Entry
 */

/** @param {Entry} entry */
const rowsOf = (entry) => ('encoded' in entry ? entry.encoded.rows : 1);

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {import('pino').Logger} options.log
 * @param {number} options.maxBuffered records kept while the database is down; beyond it the oldest are dropped
 * @param {number} [options.batchRows] rows per write
 * @param {number} [options.maxInFlight] batches written at once (1: in order, one after the other)
 * @param {number} [options.flushIntervalMs] also write on this timer (else only on flush())
 * @param {import('../../core/retry.js').BackoffOptions} [options.backoff]
 * @param {(event: { pending: number, dropped: number }) => void} [options.onChange]
 * @param {import('../../core/types.js').PageWriter} [options.writePage]
 */
export function createPostgresSink(options) {
  const { pool, log, maxBuffered, batchRows = 5000, maxInFlight = 1, backoff = DEFAULT_BACKOFF, onChange } = options;
  const writePage = options.writePage ?? createPageWriter(pool);
  /** @type {Entry[]} */
  let buffer = [];
  let bufferedRows = 0;
  /** Rows taken out of the buffer by the writes in flight, and how many writes. */
  let writingRows = 0;
  let writes = 0;
  let written = 0;
  let dropped = 0;
  let failures = 0;
  let nextAttemptAt = 0;
  /** @type {Error | undefined} */
  let lastError;
  /** @type {Promise<void> | undefined} */
  let flushing;
  /** Wakes the flush loop: a write ended, or records came in while it runs. */
  let wake = () => {};
  /** @type {Array<() => void>} */
  let roomWaiters = [];
  const releaseRoom = () => {
    const waiters = roomWaiters;
    roomWaiters = [];
    for (const resolve of waiters) resolve();
  };
  let closed = false;
  const notify = () => onChange?.({ pending: bufferedRows + writingRows, dropped });

  /** The front of the buffer, as one page of one kind: an encoded entry alone, or up to batchRows records. */
  function takeBatch() {
    const first = buffer[0];
    let end = 1;
    if (!('encoded' in first)) {
      while (end < buffer.length && end < batchRows && buffer[end].kind === first.kind && !('encoded' in buffer[end]))
        end += 1;
    }
    const entries = buffer.slice(0, end);
    buffer = buffer.slice(end);
    const rows = 'encoded' in first ? first.encoded.rows : entries.length;
    bufferedRows -= rows;
    return { entries, rows };
  }

  /**
   * Writes one batch; a failed batch goes back to the front of the buffer.
   * @param {{ entries: Entry[], rows: number }} batch
   */
  async function writeBatch({ entries, rows }) {
    const first = entries[0];
    writingRows += rows;
    writes += 1;
    try {
      if ('encoded' in first) await writePage({ kind: first.kind, records: [], encoded: first.encoded });
      else await writePage({ kind: first.kind, records: /** @type {PaasmonRecord[]} */ (entries) });
      written += rows;
    } catch (err) {
      buffer = entries.concat(buffer);
      bufferedRows += rows;
      throw err;
    } finally {
      writingRows -= rows;
      writes -= 1;
      notify();
    }
    // After the bookkeeping: the rows are committed whatever the callback does.
    if ('encoded' in first) first.encoded.onWritten?.();
  }

  /** Writes the buffer, up to maxInFlight batches at once, until it is empty or a write failed. */
  async function flushNow() {
    /** @type {Set<Promise<void>>} */
    const running = new Set();
    /** @type {{ error: unknown } | undefined} */
    let failed;
    for (;;) {
      while (!failed && buffer.length > 0 && running.size < maxInFlight) {
        const write = writeBatch(takeBatch()).then(
          () => {
            running.delete(write);
            wake();
          },
          (error) => {
            running.delete(write);
            failed ??= { error };
            wake();
          },
        );
        running.add(write);
      }
      if (buffer.length === 0) releaseRoom();
      if (running.size === 0) break;
      // Installed before any write can end (they end in later ticks): no wake-up is lost.
      await new Promise((resolve) => {
        wake = () => resolve(undefined);
      });
    }
    wake = () => {};
    if (failed) throw failed.error;
  }

  /**
   * Writes what is buffered. During a backoff it returns at once, unless `wait` is set: then it
   * waits for the next attempt (back-pressure for a producer that must not drop records).
   * @param {{ force?: boolean, wait?: boolean }} [opts]
   */
  async function flush(opts = {}) {
    if (flushing) {
      wake();
      return flushing;
    }
    if (buffer.length === 0) return;
    const delay = nextAttemptAt - Date.now();
    if (delay > 0 && !opts.force) {
      if (!opts.wait) return;
      await sleep(delay);
      return flush(opts);
    }
    flushing = (async () => {
      try {
        await flushNow();
        if (failures > 0) log.info({ failures }, 'postgres: writing again after an outage');
        failures = 0;
        lastError = undefined;
      } catch (err) {
        lastError = /** @type {Error} */ (err);
        const retryInMs = backoffDelay(failures, { ...backoff, retries: Infinity });
        failures += 1;
        nextAttemptAt = Date.now() + retryInMs;
        log.warn(
          { err, pending: bufferedRows, retryInMs },
          'postgres: write failed; records kept for the next attempt',
        );
      } finally {
        flushing = undefined;
        releaseRoom();
      }
    })();
    return flushing;
  }

  /** @param {Entry} entry */
  function add(entry) {
    buffer.push(entry);
    bufferedRows += rowsOf(entry);
  }

  function dropOverflow() {
    let overflow = 0;
    while (bufferedRows > maxBuffered && buffer.length > 0) {
      const rows = rowsOf(/** @type {Entry} */ (buffer.shift()));
      bufferedRows -= rows;
      overflow += rows;
    }
    if (overflow > 0) {
      dropped += overflow;
      log.error(
        { dropped: overflow, droppedTotal: dropped, maxBuffered },
        'postgres: buffer full while the database is unreachable; oldest records dropped (raise DB_BUFFER_RECORDS)',
      );
    }
  }

  const timer = options.flushIntervalMs ? setInterval(() => void flush(), options.flushIntervalMs) : undefined;
  timer?.unref();

  return {
    name: 'postgres',
    /** @param {PaasmonRecord[]} records */
    write(records) {
      for (const record of records) add(record);
      dropOverflow();
      notify();
    },
    /**
     * Rows already encoded for a binary COPY, written as one page (the load generator's batches).
     * `encoded.onWritten` is called once the page is committed; never for a page dropped, or not
     * yet written when the sink closes.
     * @param {import('../../core/types.js').RecordKind} kind @param {EncodedRows} encoded
     */
    writeEncoded(kind, encoded) {
      add({ kind, encoded });
      dropOverflow();
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
        if (flushing) await new Promise((resolve) => roomWaiters.push(() => resolve(undefined)));
        else await flush({ wait: true });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flush({ force: true });
      if (bufferedRows > 0) log.error({ lost: bufferedRows }, 'postgres: records could not be written before shutdown');
    },
    /** Records waiting to be written (also those of the writes in flight). */
    get pending() {
      return bufferedRows + writingRows;
    },
    /** Records of the writes in flight. */
    get writing() {
      return writingRows;
    },
    /** Batches being written now (at most maxInFlight). */
    get writesInFlight() {
      return writes;
    },
    /** Records written so far. */
    get written() {
      return written;
    },
    /** Records dropped because the buffer was full. */
    get dropped() {
      return dropped;
    },
    /** The last write error, cleared by a successful write. */
    get lastError() {
      return lastError;
    },
  };
}

/** @typedef {ReturnType<typeof createPostgresSink>} PostgresSink */
