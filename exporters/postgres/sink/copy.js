// COPY toolkit: records as binary COPY tuples (copy-binary.js, driven by the typed table specs), a
// keyed insert that skips rows already present (through a staging table), a plain COPY for rows
// that cannot exist yet or are only counted (falling back to the keyed insert), and a transaction frame.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import { withClient } from '../client.js';
import { rowEncoder, tupleWriter } from '../rows/copy-binary.js';

/** PostgreSQL's SQLSTATE for a duplicate key. */
export const UNIQUE_VIOLATION = '23505';

/** @typedef {import('../rows/tables.js').TableSpec} TableSpec */
/** @typedef {import('../../../core/types.js').EncodedRows} EncodedRows */

/**
 * Records as binary COPY tuples, each column in its type's binary form (tables.js).
 * @param {TableSpec} spec @param {Iterable<unknown>} records
 * @param {number} [rowsHint] about how many records there are (default: an array's length)
 * @param {ReturnType<typeof tupleWriter>} [into] a writer to go on filling (the rows returned are all of its)
 * @param {(record: unknown, error: Error) => void} [onUnusable] told of a record a value of which cannot be
 *   encoded, which is left out (without it, the error is thrown, the rows before it kept whole)
 * @returns {EncodedRows}
 */
export function binaryRows(spec, records, rowsHint, into, onUnusable) {
  const { count, encodeRow } = encoderOf(spec);
  const tuples = into ?? tupleWriter(rowsHint ?? (Array.isArray(records) ? records.length : 0));
  for (const record of records) {
    tuples.row(count);
    try {
      encodeRow(tuples, record);
    } catch (err) {
      tuples.dropRow();
      if (!onUnusable) throw err;
      onUnusable(record, /** @type {Error} */ (err));
    }
  }
  return tuples.done();
}

/** @type {WeakMap<TableSpec, { count: number, encodeRow: ReturnType<typeof rowEncoder> }>} */
const encoders = new WeakMap();

/** A spec's row encoder, made once: the drain encodes a few records per call. @param {TableSpec} spec */
function encoderOf(spec) {
  let encoder = encoders.get(spec);
  if (!encoder) encoders.set(spec, (encoder = { count: spec.columns.length, encodeRow: rowEncoder(spec.columns) }));
  return encoder;
}

/** @param {TableSpec} spec */
const columnList = (spec) => spec.columns.map(([c]) => c).join(', ');

/**
 * The start of every COPY in binary format: signature, flags (no OIDs) and an empty header
 * extension (PostgreSQL "COPY", File Formats); the rows follow, then the trailer (a field count of -1).
 */
const COPY_BINARY_HEADER = Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1');
const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);

/**
 * Rows as a COPY stream in binary format: header, the encoded tuples, trailer.
 * @param {EncodedRows} rows
 */
function copySource(rows) {
  return Readable.from([COPY_BINARY_HEADER, rows.data, COPY_BINARY_TRAILER]);
}

/**
 * COPY the rows into a staging table, then insert the rows not already present. Runs inside the
 * caller's transaction.
 * @param {import('pg').PoolClient} client @param {TableSpec} spec @param {EncodedRows} rows
 * @param {{ readBack?: boolean }} [options] readBack: return the inserted rows' `returning` columns
 * @returns {Promise<{ count: number, rows: any[] }>} how many rows were inserted now, and (readBack)
 *   those rows
 */
export async function copyInsert(client, spec, rows, { readBack = true } = {}) {
  const staging = `paasmon_staging_${spec.table}`;
  const columns = columnList(spec);
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${staging} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`,
  );
  await pipeline(
    copySource(rows),
    client.query(copyStreams.from(`COPY ${staging} (${columns}) FROM STDIN (FORMAT binary)`)),
  );
  const returning = readBack && spec.returning ? ` RETURNING ${spec.returning.map(([c]) => c).join(', ')}` : '';
  // DO NOTHING also skips a row that appears twice in one batch (no DISTINCT, no sort needed).
  const result = await client.query(`INSERT INTO ${spec.table} (${columns}) SELECT ${columns} FROM ${staging}
    ON CONFLICT (${spec.key.join(', ')}) DO NOTHING${returning}`);
  // Rows already there may lack what this copy knows (an app name given only now): fill it in,
  // never overwrite. Only when something was already there, so a page of new rows pays nothing.
  if ((result.rowCount ?? 0) < rows.rows) {
    for (const column of spec.fillMissing ?? []) {
      const sameKey = spec.key.map((k) => `t.${k} = s.${k}`).join(' AND ');
      await client.query(`UPDATE ${spec.table} t SET ${column} = s.${column} FROM ${staging} s
        WHERE ${sameKey} AND t.${column} IS NULL AND s.${column} IS NOT NULL`);
    }
  }
  return { count: result.rowCount ?? 0, rows: result.rows };
}

/**
 * copyInsert for a caller that only counts the inserted rows: first a plain COPY straight into the
 * table, under a savepoint, and only when a row is already there (a unique violation: a window
 * read again, a row twice in the page) the staging table's keyed insert, after rolling back to the
 * savepoint. Most pages hold only new rows, and the staging table's extra write and read add to
 * PostgreSQL's CPU per row (bench/ingest.bench.js). Runs inside the caller's transaction.
 * @param {import('pg').PoolClient} client @param {TableSpec} spec @param {EncodedRows} rows
 * @returns {Promise<number>} how many rows were inserted now
 */
export async function copyInsertCounted(client, spec, rows) {
  await client.query('SAVEPOINT paasmon_plain_copy');
  try {
    const count = await copyNew(client, spec, rows);
    await client.query('RELEASE SAVEPOINT paasmon_plain_copy');
    return count;
  } catch (err) {
    if (/** @type {any} */ (err)?.code !== UNIQUE_VIOLATION) throw err;
    await client.query('ROLLBACK TO SAVEPOINT paasmon_plain_copy');
    await client.query('RELEASE SAVEPOINT paasmon_plain_copy');
  }
  return (await copyInsert(client, spec, rows, { readBack: false })).count;
}

/**
 * COPY straight into the table, for rows that cannot exist yet (fresh keys: new random bits), or
 * under copyInsertCounted's savepoint. Runs inside the caller's transaction.
 * @param {import('pg').PoolClient} client @param {TableSpec} spec @param {EncodedRows} rows
 * @returns {Promise<number>} rows copied
 */
export async function copyNew(client, spec, rows) {
  await pipeline(
    copySource(rows),
    client.query(copyStreams.from(`COPY ${spec.table} (${columnList(spec)}) FROM STDIN (FORMAT binary)`)),
  );
  return rows.rows;
}

/**
 * Runs `work` in a transaction; on error the connection is discarded (it may be mid-COPY).
 * @template T
 * @param {import('pg').Pool} pool @param {(client: import('pg').PoolClient) => Promise<T>} work
 * @returns {Promise<T>}
 */
export function inTransaction(pool, work) {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  });
}
