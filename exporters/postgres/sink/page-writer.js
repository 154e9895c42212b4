// The transactional page writer (core/types.js PageWriter): a page's rows and its checkpoint in
// one transaction; rows already present are skipped; only the records inserted now come back.
import { saveCheckpoint } from '../claims/checkpoints.js';
import { UNIQUE_VIOLATION, binaryRows, copyInsert, copyInsertCounted, copyNew, inTransaction } from './copy.js';
import { tupleWriter } from '../rows/copy-binary.js';
import { createPartitionMaker, noteWrite } from '../schema/partitions.js';
import { tableOf } from '../rows/tables.js';

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
 * A page encoded for COPY as its records come in several writes, into one buffer.
 * @param {string} kind @param {number} rowsHint about how many rows the page will hold
 */
export function createPageEncoder(kind, rowsHint) {
  const spec = tableOf(kind);
  const tuples = tupleWriter(rowsHint);
  let rows = 0;
  return {
    /**
     * @param {Iterable<unknown>} records each encoded as it comes
     * @param {(record: unknown, error: Error) => void} [onUnusable] a record left out: a value of it cannot be encoded
     * @returns {number} how many were encoded
     */
    add(records, onUnusable) {
      const before = rows;
      rows = binaryRows(spec, records, undefined, tuples, onUnusable).rows;
      return rows - before;
    },
    get rows() {
      return rows;
    },
    done: () => tuples.done(),
  };
}

/**
 * What the PostgreSQL code counts, in counters its creator keeps (e.g. the Prometheus sink's).
 * @typedef {object} PostgresMetrics
 * @property {(kind: string, records: number) => void} [countCleaned] records of a committed page stored with
 *   cleaned text
 */

/**
 * @param {import('pg').Pool} pool @param {PostgresMetrics} [metrics]
 * @returns {import('../../../core/types.js').PageWriter}
 */
export function createPageWriter(pool, metrics = {}) {
  const ensurePartitions = createPartitionMaker(pool);
  return async function writePage(page) {
    const inserted = await writeRows(page);
    if (inserted.cleaned) metrics.countCleaned?.(page.kind, inserted.cleaned);
    return inserted;
  };

  /**
   * @param {import('../../../core/types.js').Page} page
   * @returns {Promise<import('../../../core/types.js').Inserted>}
   */
  async function writeRows(page) {
    const { kind, records, encoded, checkpoint, commitAfter, copyAfter, onCopied, countOnly } = page;
    const spec = tableOf(kind);
    // The partitions of the page's days exist before its transaction takes any lock.
    const extent = await ensurePartitions(spec, { records, encoded });
    /** Records with text cleaned: set when the rows are encoded. */
    let cleaned = encoded?.cleaned ?? 0;
    /** @type {import('../../../core/types.js').EncodedRows | undefined} */
    let binary = encoded;
    const lines = () => {
      if (binary) return binary;
      binary = binaryRows(spec, records);
      cleaned = binary.cleaned ?? 0;
      return binary;
    };
    // The page's own records stand for the rows inserted when all were new: only a page with rows
    // already there reads back which ones are new (an encoded page's caller must know its rows).
    const knowsRows = !encoded || page.observedByCaller;
    const keyed = () =>
      inTransaction(pool, async (client) => {
        const note = noteWrite(client, extent);
        await note.start();
        await copyAfter;
        const inserted = !(records.length || encoded?.rows)
          ? { count: 0, rows: [] }
          : countOnly
            ? { count: await copyInsertCounted(client, spec, lines()), rows: [] }
            : knowsRows
              ? await copyInsertObserved(client, spec, lines(), records)
              : await copyInsert(client, spec, lines());
        onCopied?.();
        await commitAfter;
        if (checkpoint) await saveCheckpoint(client, checkpoint);
        await note.end();
        const read = 'records' in inserted ? inserted.records : inserted.rows.map((row) => recordOf(kind, spec, row));
        return { count: inserted.count, records: read, cleaned };
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
 * A plain COPY under a savepoint, as copyInsertCounted writes; when some rows were already there
 * (a unique violation), the keyed insert instead, reading back the new ones. Runs inside the
 * caller's transaction.
 * @param {import('pg').PoolClient} client @param {import('../rows/tables.js').TableSpec} spec
 * @param {import('../../../core/types.js').EncodedRows} rows
 * @param {import('../../../core/types.js').PaasmonRecord[]} records the page's, returned when all were new
 * @returns {Promise<{ count: number, records: import('../../../core/types.js').PaasmonRecord[] } | { count: number,
 *   rows: any[] }>}
 */
async function copyInsertObserved(client, spec, rows, records) {
  await client.query('SAVEPOINT paasmon_observed_copy');
  try {
    const count = await copyNew(client, spec, rows);
    await client.query('RELEASE SAVEPOINT paasmon_observed_copy');
    return { count, records };
  } catch (err) {
    if (/** @type {any} */ (err)?.code !== UNIQUE_VIOLATION) throw err;
    await client.query('ROLLBACK TO SAVEPOINT paasmon_observed_copy');
    await client.query('RELEASE SAVEPOINT paasmon_observed_copy');
  }
  return copyInsert(client, spec, rows);
}

/**
 * @param {string} kind @param {import('../rows/tables.js').TableSpec} spec @param {Record<string, unknown>} row
 * @returns {import('../../../core/types.js').PaasmonRecord}
 */
function recordOf(kind, spec, row) {
  /** @type {Record<string, unknown>} */
  const record = { kind };
  for (const [column, field] of spec.returning ?? []) record[field] = row[column];
  return /** @type {any} */ (record);
}
