// The day partitions of the time series tables (sql/migrations/012): created ahead, and for the
// days of each page before its COPY, so rows go straight into their partition; whatever comes
// past them (a lock not had in time, a direct INSERT) lands in the default partition and is moved
// out by settlePartitions.
import { POSTGRES_EPOCH_MS } from '../rows/copy-binary.js';

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

/** @param {unknown} value @returns {number | undefined} ms since 1970 of a time */
function msOf(value) {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Where a page's rows are in time: the UTC days they fall on, and the first and last time (ms,
 * widened to whole ms); `all` when some row's time is not a finite time.
 * @typedef {{ table: string, days: Set<number>, first: number, last: number, all: boolean }} PageExtent
 */

/** @param {string} table @returns {PageExtent} */
const emptyExtent = (table) => ({ table, days: new Set(), first: Infinity, last: -Infinity, all: false });

/** @param {PageExtent} extent @param {number | undefined} ms */
function widen(extent, ms) {
  if (ms === undefined || !Number.isFinite(ms)) {
    extent.all = true;
    return;
  }
  extent.days.add(Math.floor(ms / DAY_MS));
  if (ms < extent.first) extent.first = Math.floor(ms);
  if (ms > extent.last) extent.last = Math.ceil(ms);
}

/**
 * The ms since 1970 of a binary COPY timestamp (int64 µs since 2000-01-01) at `at`, read as its two 32-bit
 * halves: a BigInt per row is garbage on every page's write. Undefined for PostgreSQL's infinities, the
 * int64 extremes.
 * @param {Buffer} data @param {number} at
 */
function msAt(data, at) {
  const high = data.readInt32BE(at);
  const low = data.readUInt32BE(at + 4);
  if ((high === 0x7fffffff && low === 0xffffffff) || (high === -0x80000000 && low === 0)) return undefined;
  return (high * 2 ** 32 + low) / 1000 + POSTGRES_EPOCH_MS;
}

/**
 * The extent of binary COPY tuples, read from the time column's field (int64 microseconds since
 * 2000-01-01) without decoding the rest.
 * @param {PageExtent} extent @param {Buffer} data @param {number} column the time column's position
 */
function encodedExtent(extent, data, column) {
  let at = 0;
  while (at + 2 <= data.length) {
    const fields = data.readInt16BE(at);
    at += 2;
    for (let i = 0; i < fields; i++) {
      const length = data.readInt32BE(at);
      at += 4;
      if (i === column) widen(extent, length === 8 ? msAt(data, at) : undefined);
      if (length > 0) at += length;
    }
  }
  return extent;
}

/**
 * Where a page's rows fall in time; undefined for tables that are not partitioned.
 * @param {import('../rows/tables.js').TableSpec} spec
 * @param {{ records: unknown[], encoded?: import('../../../core/types.js').EncodedRows }} page
 * @returns {PageExtent | undefined}
 */
export function pageExtent(spec, { records, encoded }) {
  const key = PARTITION_KEYS[/** @type {keyof typeof PARTITION_KEYS} */ (spec.table)];
  const column = spec.columns.findIndex(([name]) => name === key);
  if (!key || column < 0) return undefined;
  const extent = emptyExtent(spec.table);
  if (encoded) return encodedExtent(extent, encoded.data, column);
  const toValue = spec.columns[column][1];
  for (const record of records) widen(extent, msOf(toValue(record)));
  return extent;
}

/**
 * The UTC days a page's rows fall on; empty for tables that are not partitioned.
 * @param {import('../rows/tables.js').TableSpec} spec
 * @param {{ records: unknown[], encoded?: import('../../../core/types.js').EncodedRows }} page
 * @returns {Set<number>}
 */
export function pageDays(spec, page) {
  return pageExtent(spec, page)?.days ?? new Set();
}

/**
 * The page writer's notes of a page's write (migration 015's paasmon_note_write): the stored
 * figures of the runs whose window the page's span meets are stale (run_figures_written).
 * `start` before the COPY (the statement triggers leave the table to it), `end` as the
 * transaction's last statement (the rows it updates stay locked only while the transaction commits).
 * @param {import('pg').PoolClient} client @param {PageExtent | undefined} extent
 */
export function noteWrite(client, extent) {
  const noted = extent !== undefined && (extent.all || extent.first <= extent.last);
  return {
    start: async () => {
      if (noted) await client.query('SELECT paasmon_noting_writes($1)', [extent.table]);
    },
    end: async () => {
      if (!noted) return;
      await client.query('SELECT paasmon_note_write($1, $2, $3)', [
        extent.table,
        extent.all ? null : new Date(extent.first).toISOString(),
        extent.all ? null : new Date(extent.last).toISOString(),
      ]);
    },
  };
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
   * @param {import('../rows/tables.js').TableSpec} spec
   * @param {{ records: unknown[], encoded?: import('../../../core/types.js').EncodedRows }} page
   * @returns {Promise<PageExtent | undefined>} where the page's rows are in time (for noteWrite)
   */
  return async function ensure(spec, page) {
    const extent = pageExtent(spec, page);
    const missing = [...(extent?.days ?? [])].filter((day) => !known.has(`${spec.table} ${day}`));
    if (missing.length === 0) return extent;
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
    return extent;
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
