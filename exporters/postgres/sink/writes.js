// The PostgreSQL sink's writes in flight: up to maxInFlight pages written at once from the buffer, a
// failed page put back at its front, and the producers waiting for room woken when the buffer empties.

/** @typedef {import('../../../core/types.js').PaasmonRecord} PaasmonRecord */

/**
 * The page a batch is written as: its encoded rows, or its records.
 * @param {import('./buffer.js').Batch} batch
 * @returns {import('../../../core/types.js').Page}
 */
function pageOf({ entries }) {
  const first = entries[0];
  if ('encoded' in first) return { kind: first.kind, records: [], encoded: first.encoded };
  return { kind: first.kind, records: /** @type {PaasmonRecord[]} */ (entries) };
}

/** Producers waiting for the buffer to empty; all woken at once. */
function createRoomWaiters() {
  /** @type {Array<() => void>} */
  let waiters = [];
  return {
    release() {
      const woken = waiters;
      waiters = [];
      for (const resolve of woken) resolve();
    },
    /** Resolves at the next release. @returns {Promise<void>} */
    next: () => new Promise((resolve) => waiters.push(() => resolve(undefined))),
  };
}

/**
 * @param {object} options
 * @param {import('./buffer.js').SinkBuffer} options.buffer
 * @param {import('../../../core/types.js').PageWriter} options.writePage
 * @param {number} options.maxInFlight
 * @param {() => void} options.notify called after every write, done or failed
 */
export function createWritesInFlight({ buffer, writePage, maxInFlight, notify }) {
  /** Rows taken out of the buffer by the writes in flight, how many writes, and rows written so far. */
  const counts = { writingRows: 0, writes: 0, written: 0 };
  /** Wakes the write loop: a write ended, or records came in while it runs. */
  let wake = () => {};
  const room = createRoomWaiters();

  /**
   * Writes one batch; a failed batch goes back to the front of the buffer.
   * @param {import('./buffer.js').Batch} batch
   */
  async function writeBatch(batch) {
    const first = batch.entries[0];
    counts.writingRows += batch.rows;
    counts.writes += 1;
    try {
      await writePage(pageOf(batch));
      counts.written += batch.rows;
    } catch (err) {
      buffer.putBack(batch);
      throw err;
    } finally {
      counts.writingRows -= batch.rows;
      counts.writes -= 1;
      notify();
    }
    // After the bookkeeping: the rows are committed whatever the callback does.
    if ('encoded' in first) first.encoded.onWritten?.();
  }

  /** Writes the buffer, up to maxInFlight batches at once, until it is empty or a write failed. */
  async function writeAll() {
    /** @type {Set<Promise<void>>} */
    const running = new Set();
    /** @type {{ error: unknown } | undefined} */
    let failed;
    for (;;) {
      while (!failed && buffer.length > 0 && running.size < maxInFlight) {
        const write = writeBatch(buffer.takeBatch()).then(
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
      if (buffer.length === 0) room.release();
      if (running.size === 0) break;
      // Installed before any write can end (they end in later ticks): no wake-up is lost.
      await new Promise((resolve) => {
        wake = () => resolve(undefined);
      });
    }
    wake = () => {};
    if (failed) throw failed.error;
  }

  return {
    writeAll,
    /** Lets a running writeAll take what came in since it last looked. */
    wake: () => wake(),
    releaseRoom: room.release,
    nextRoom: room.next,
    get writingRows() {
      return counts.writingRows;
    },
    get writes() {
      return counts.writes;
    },
    get written() {
      return counts.written;
    },
  };
}
