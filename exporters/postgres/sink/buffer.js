// The PostgreSQL sink's buffer: entries in arrival order, taken a page of one kind at a time, bounded in
// rows (beyond the bound the oldest are dropped, counted and logged).

/** @typedef {import('../../../core/types.js').PaasmonRecord} PaasmonRecord */
/** @typedef {import('../../../core/types.js').EncodedRows} EncodedRows */
/**
 * A buffered record, or rows already encoded for a binary COPY (written as one page).
 * @typedef {PaasmonRecord | { kind: import('../../../core/types.js').RecordKind, encoded: EncodedRows }} Entry
 */
/** @typedef {{ entries: Entry[], rows: number }} Batch */

/** @param {Entry} entry */
const rowsOf = (entry) => ('encoded' in entry ? entry.encoded.rows : 1);

/**
 * @param {object} options
 * @param {number} options.maxBuffered rows kept; beyond it the oldest are dropped
 * @param {number} options.batchRows records per page
 * @param {import('pino').Logger} options.log
 */
export function createSinkBuffer({ maxBuffered, batchRows, log }) {
  /** @type {Entry[]} */
  let entries = [];
  let rows = 0;
  let dropped = 0;

  return {
    /** @param {Entry} entry */
    add(entry) {
      entries.push(entry);
      rows += rowsOf(entry);
    },

    /** Drops the oldest entries until the buffer is within its bound again. */
    dropOverflow() {
      let overflow = 0;
      while (rows > maxBuffered && entries.length > 0) {
        const shed = rowsOf(/** @type {Entry} */ (entries.shift()));
        rows -= shed;
        overflow += shed;
      }
      if (overflow > 0) {
        dropped += overflow;
        log.error(
          { dropped: overflow, droppedTotal: dropped, maxBuffered },
          'postgres: buffer full while the database is unreachable; oldest records dropped (raise DB_BUFFER_RECORDS)',
        );
      }
    },

    /**
     * The front of the buffer, as one page of one kind: an encoded entry alone, or up to batchRows records.
     * @returns {Batch}
     */
    takeBatch() {
      const first = entries[0];
      let end = 1;
      if (!('encoded' in first)) {
        while (
          end < entries.length &&
          end < batchRows &&
          entries[end].kind === first.kind &&
          !('encoded' in entries[end])
        )
          end += 1;
      }
      const taken = entries.slice(0, end);
      entries = entries.slice(end);
      const takenRows = 'encoded' in first ? first.encoded.rows : taken.length;
      rows -= takenRows;
      return { entries: taken, rows: takenRows };
    },

    /** A batch whose write failed goes back to the front. @param {Batch} batch */
    putBack(batch) {
      entries = batch.entries.concat(entries);
      rows += batch.rows;
    },

    /** Entries waiting (an encoded page counts one). */
    get length() {
      return entries.length;
    },
    /** Rows waiting. */
    get rows() {
      return rows;
    },
    /** Rows dropped so far because the buffer was full. */
    get dropped() {
      return dropped;
    },
  };
}

/** @typedef {ReturnType<typeof createSinkBuffer>} SinkBuffer */
