// The transactional page writer (core/types.js PageWriter): a page's rows and its checkpoint in
// one transaction; rows already present are skipped; only the records inserted now come back.
import { saveCheckpoint } from './checkpoints.js';
import { countCleaned } from './clean-text.js';
import { UNIQUE_VIOLATION, binaryRows, copyInsert, copyInsertCounted, copyNew, inTransaction } from './copy.js';
import { createPartitionMaker, noteWrite } from './partitions.js';
import { tableOf } from './tables.js';

/**
 * A page's records encoded for COPY now, so that a page waiting for its write holds one buffer,
 * not thousands of objects V8 would copy and promote.
 * @param {string} kind @param {Iterable<unknown>} records each encoded as it comes
 * @param {number} [rowsHint] about how many records there are
 */
export function encodeRecords(kind, records, rowsHint) {
  return binaryRows(tableOf(kind), records, rowsHint);
}

/**
 * @param {import('pg').Pool} pool
 * @returns {import('../../core/types.js').PageWriter}
 */
export function createPageWriter(pool) {
  const ensurePartitions = createPartitionMaker(pool);
  return async function writePage(page) {
    const inserted = await writeRows(page);
    countCleaned(page.kind, inserted.cleaned ?? 0);
    return inserted;
  };

  /** @param {import('../../core/types.js').Page} page @returns {Promise<import('../../core/types.js').Inserted>} */
  async function writeRows({ kind, records, encoded, checkpoint, commitAfter, copyAfter, onCopied, countOnly }) {
    const spec = tableOf(kind);
    // The partitions of the page's days exist before its transaction takes any lock.
    const extent = await ensurePartitions(spec, { records, encoded });
    /** Records with text cleaned: set each time the rows are encoded. */
    let cleaned = encoded?.cleaned ?? 0;
    const lines = () => {
      if (encoded) return encoded;
      const binary = binaryRows(spec, records);
      cleaned = binary.cleaned ?? 0;
      return binary;
    };
    const keyed = () =>
      inTransaction(pool, async (client) => {
        const note = noteWrite(client, extent);
        await note.start();
        await copyAfter;
        const inserted = !(records.length || encoded?.rows)
          ? { count: 0, rows: [] }
          : countOnly
            ? { count: await copyInsertCounted(client, spec, lines()), rows: [] }
            : await copyInsert(client, spec, lines());
        onCopied?.();
        await commitAfter;
        if (checkpoint) await saveCheckpoint(client, checkpoint);
        await note.end();
        return { count: inserted.count, records: inserted.rows.map((row) => recordOf(kind, spec, row)), cleaned };
      });
    if (!spec.freshKeys || checkpoint || commitAfter || copyAfter) return keyed();
    try {
      await inTransaction(pool, async (client) => {
        const note = noteWrite(client, extent);
        await note.start();
        await copyNew(client, spec, lines());
        await note.end();
      });
      return { count: encoded?.rows ?? records.length, records: countOnly ? [] : records, cleaned };
    } catch (err) {
      // A batch retried after its commit was not acknowledged: fall back to skipping what is there.
      if (/** @type {any} */ (err)?.code !== UNIQUE_VIOLATION) throw err;
      return keyed();
    }
  }
}

/**
 * @param {string} kind @param {import('./tables.js').TableSpec} spec @param {Record<string, unknown>} row
 * @returns {import('../../core/types.js').PaasmonRecord}
 */
function recordOf(kind, spec, row) {
  /** @type {Record<string, unknown>} */
  const record = { kind };
  for (const [column, field] of spec.returning ?? []) record[field] = row[column];
  return /** @type {any} */ (record);
}
