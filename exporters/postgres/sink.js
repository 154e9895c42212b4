// Sink `postgres`: buffers records of any kind and writes them in batches through the page writer
// (re-writing a batch never duplicates). While the database is unreachable the records wait in a
// bounded buffer and the write is retried with backoff; beyond the bound the oldest are dropped
// and counted. The collector's samples and the load generator's requests both go through here.
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_BACKOFF, backoffDelay } from '../../core/retry.js';
import { createPageWriter } from './page-writer.js';

/** @typedef {import('../../core/types.js').PaasmonRecord} PaasmonRecord */

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {import('pino').Logger} options.log
 * @param {number} options.maxBuffered records kept while the database is down; beyond it the oldest are dropped
 * @param {number} [options.batchRows] rows per write
 * @param {number} [options.flushIntervalMs] also write on this timer (else only on flush())
 * @param {import('../../core/retry.js').BackoffOptions} [options.backoff]
 * @param {(event: { pending: number, dropped: number }) => void} [options.onChange]
 * @param {import('../../core/types.js').PageWriter} [options.writePage]
 */
export function createPostgresSink(options) {
  const { pool, log, maxBuffered, batchRows = 5000, backoff = DEFAULT_BACKOFF, onChange } = options;
  const writePage = options.writePage ?? createPageWriter(pool);
  /** @type {PaasmonRecord[]} */
  let buffer = [];
  /** Records taken out of the buffer by the write in flight. */
  let writing = 0;
  let written = 0;
  let dropped = 0;
  let failures = 0;
  let nextAttemptAt = 0;
  /** @type {Error | undefined} */
  let lastError;
  /** @type {Promise<void> | undefined} */
  let flushing;
  let closed = false;
  const notify = () => onChange?.({ pending: buffer.length + writing, dropped });

  /** Writes the buffer in batches of one kind; a failed batch goes back to the front. */
  async function flushNow() {
    while (buffer.length > 0) {
      const kind = buffer[0].kind;
      let end = 1;
      while (end < buffer.length && end < batchRows && buffer[end].kind === kind) end += 1;
      const batch = buffer.slice(0, end);
      buffer = buffer.slice(end);
      writing = batch.length;
      try {
        await writePage({ kind, records: batch });
        written += batch.length;
      } catch (err) {
        buffer = batch.concat(buffer);
        throw err;
      } finally {
        writing = 0;
        notify();
      }
    }
  }

  /**
   * Writes what is buffered. During a backoff it returns at once, unless `wait` is set: then it
   * waits for the next attempt (back-pressure for a producer that must not drop records).
   * @param {{ force?: boolean, wait?: boolean }} [opts]
   */
  async function flush(opts = {}) {
    if (flushing) return flushing;
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
          { err, pending: buffer.length, retryInMs },
          'postgres: write failed; records kept for the next attempt',
        );
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  }

  const timer = options.flushIntervalMs ? setInterval(() => void flush(), options.flushIntervalMs) : undefined;
  timer?.unref();

  return {
    name: 'postgres',
    /** @param {PaasmonRecord[]} records */
    write(records) {
      for (const record of records) buffer.push(record);
      const overflow = buffer.length - maxBuffered;
      if (overflow > 0) {
        buffer = buffer.slice(overflow);
        dropped += overflow;
        log.error(
          { dropped: overflow, droppedTotal: dropped, maxBuffered },
          'postgres: buffer full while the database is unreachable; oldest records dropped (raise DB_BUFFER_RECORDS)',
        );
      }
      notify();
    },
    flush,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flush({ force: true });
      if (buffer.length > 0)
        log.error({ lost: buffer.length }, 'postgres: records could not be written before shutdown');
    },
    /** Records waiting to be written (also those of the write in flight). */
    get pending() {
      return buffer.length + writing;
    },
    /** Records of the write in flight. */
    get writing() {
      return writing;
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
