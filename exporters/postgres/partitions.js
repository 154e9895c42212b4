// The day partitions of the time series tables (sql/migrations/012): created ahead, and for the
// days of each page before its COPY, so rows go straight into their partition; whatever comes
// past them (a lock not had in time, a direct INSERT) lands in the default partition and is moved
// out by settlePartitions.
import { POSTGRES_EPOCH_MS } from './copy-binary.js';

const DAY_MS = 86_400_000;

/** The partitioned tables and the column each is partitioned by. */
export const PARTITION_KEYS = Object.freeze({
  router_requests: 'received_at',
  loadgen_requests: 'started_at',
  instance_samples: 'ts',
});

/** How long creating a partition may wait for a lock before the rows go to the default partition. */
const LOCK_TIMEOUT = '2s';
/** Days ahead that migrate and collect keep partitions for. */
export const DAYS_AHEAD = 7;

/** @param {unknown} value @returns {number | undefined} the UTC day number of a time */
function dayOf(value) {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : undefined;
}

/**
 * The UTC days of the rows of binary COPY tuples, read from the time column's field (int64
 * microseconds since 2000-01-01) without decoding the rest.
 * @param {Buffer} data @param {number} column the time column's position
 */
function encodedDays(data, column) {
  /** @type {Set<number>} */
  const days = new Set();
  let at = 0;
  while (at + 2 <= data.length) {
    const fields = data.readInt16BE(at);
    at += 2;
    for (let i = 0; i < fields; i++) {
      const length = data.readInt32BE(at);
      at += 4;
      if (i === column && length === 8) {
        const ms = Number(data.readBigInt64BE(at)) / 1000 + POSTGRES_EPOCH_MS;
        days.add(Math.floor(ms / DAY_MS));
      }
      if (length > 0) at += length;
    }
  }
  return days;
}

/**
 * The UTC days a page's rows fall on; empty for tables that are not partitioned.
 * @param {import('./tables.js').TableSpec} spec
 * @param {{ records: unknown[], encoded?: import('../../core/types.js').EncodedRows }} page
 * @returns {Set<number>}
 */
export function pageDays(spec, { records, encoded }) {
  const key = PARTITION_KEYS[/** @type {keyof typeof PARTITION_KEYS} */ (spec.table)];
  const column = spec.columns.findIndex(([name]) => name === key);
  if (!key || column < 0) return new Set();
  if (encoded) return encodedDays(encoded.data, column);
  const toValue = spec.columns[column][1];
  /** @type {Set<number>} */
  const days = new Set();
  for (const record of records) {
    const day = dayOf(toValue(record));
    if (day !== undefined) days.add(day);
  }
  return days;
}

/**
 * Creates partitions on demand for a pool: `ensure(spec, page)` before a page's COPY makes the
 * partitions of its days, asking the database only for days this process has not seen yet. A
 * partition not made in time (a lock held by a long transaction) is not an error: the rows go to
 * the default partition.
 * @param {import('pg').Pool} pool @param {{ warn?: (obj: object, msg: string) => void }} [log]
 */
export function createPartitionMaker(pool, log) {
  /** @type {Set<string>} */
  const known = new Set();
  /**
   * @param {import('./tables.js').TableSpec} spec
   * @param {{ records: unknown[], encoded?: import('../../core/types.js').EncodedRows }} page
   */
  return async function ensure(spec, page) {
    const missing = [...pageDays(spec, page)].filter((day) => !known.has(`${spec.table} ${day}`));
    if (missing.length === 0) return;
    const client = await pool.connect();
    try {
      for (const day of missing) {
        try {
          await client.query('BEGIN');
          await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
          await client.query('SELECT paasmon_ensure_partition($1::regclass, $2::timestamptz)', [
            spec.table,
            new Date(day * DAY_MS).toISOString(),
          ]);
          await client.query('COMMIT');
          known.add(`${spec.table} ${day}`);
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          log?.warn?.({ table: spec.table, reason: /** @type {Error} */ (err).message }, 'partition not created now');
        }
      }
    } finally {
      client.release();
    }
  };
}

/** PostgreSQL's SQLSTATE for a lock not had within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The partitions of the coming days (and today, yesterday) of every partitioned table, and the
 * rows of the default partitions moved into partitions of their own. A lock not had in time (a long
 * report holding the tables) leaves it for the next time: nothing is refused meanwhile.
 * @param {import('pg').Pool} pool
 * @returns {Promise<{ created: number, settled: number } | undefined>} undefined when it must wait
 */
export async function preparePartitions(pool) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    const { rows } = await client.query(
      `SELECT paasmon_ensure_partitions(now() - interval '1 day', now() + make_interval(days => $1)) AS created,
              paasmon_settle_partitions() AS settled`,
      [DAYS_AHEAD],
    );
    await client.query('COMMIT');
    const settled = Number(rows[0].settled);
    // Rows moved into new partitions have no statistics yet: without them the planner takes a run
    // of thousands of requests for one and joins it row by row.
    if (settled > 0) await client.query('ANALYZE router_requests, loadgen_requests, instance_samples');
    return { created: Number(rows[0].created), settled };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if (/** @type {any} */ (err)?.code === LOCK_NOT_AVAILABLE) return undefined;
    throw err;
  } finally {
    client.release();
  }
}
