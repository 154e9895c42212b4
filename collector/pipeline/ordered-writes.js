// Pages written while the next is read, committed in order: the page path of router-log ingest and
// of load-tool imports. Page n's rows go into the table once n-1's are in (copyAfter / onCopied: a
// row in both makes only the later page wait) and n commits only after n-1 did (commitAfter).

/**
 * @typedef {Omit<import('../../core/types.js').Page, 'commitAfter' | 'copyAfter' | 'onCopied'>} OrderedPage
 */

/**
 * @param {import('../../core/types.js').PageWriter} writePage
 * @param {number} inFlight pages written at once
 */
export function orderedWrites(writePage, inFlight) {
  /** @type {Promise<void>[]} every write, awaited or not */
  const writes = [];
  /** @type {Promise<void>[]} writes not awaited yet, oldest first */
  const writing = [];
  /** @type {Promise<unknown>} */
  let previous = Promise.resolve();
  /** @type {Promise<void>} the page before has copied its rows, or its write has ended */
  let previousCopied = Promise.resolve();
  return {
    /**
     * Starts the page's write; resolves once fewer than `inFlight` are in flight, and rejects with
     * the failure of the oldest write it waited for.
     * @param {OrderedPage} page
     * @param {(inserted: import('../../core/types.js').Inserted) => void} onWritten
     */
    async write(page, onWritten) {
      /** @type {() => void} */
      let copied = () => {};
      /** @type {Promise<void>} */
      const copiedOrEnded = new Promise((resolve) => (copied = resolve));
      const write = writePage({ ...page, commitAfter: previous, copyAfter: previousCopied, onCopied: copied }).then(
        onWritten,
      );
      // Awaited in order; until then a failure must not count as unhandled.
      write.catch(() => {});
      write.finally(copied).catch(() => {});
      previous = write;
      previousCopied = copiedOrEnded;
      writes.push(write);
      writing.push(write);
      if (writing.length >= inFlight) await writing.shift();
    },
    /** Waits for the writes in flight, in order; rejects with the first failure. */
    async drain() {
      while (writing.length) await writing.shift();
    },
    /** Every write ended, committed or rolled back: after a failure, before a retry or a return. */
    settled: () => Promise.allSettled(writes),
  };
}
