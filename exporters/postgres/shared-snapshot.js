// Work spread over several connections that all read the same data: one transaction exports its
// snapshot (pg_export_snapshot), the others import it (SET TRANSACTION SNAPSHOT), as pg_dump --jobs
// does. One backend computes one query at a time, its sorts on one core: side by side, the queries
// of several runs use the server's other cores.

/** What pg_export_snapshot returns, as PostgreSQL 10 and later write it (it is put into SQL as text). */
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(-[0-9A-F]+)?$/i;

/**
 * Runs `work` on `client`, in a REPEATABLE READ transaction already, and at the same time on up to
 * `wanted` more clients of the pool (those it can give without waiting), each in a read-only
 * transaction on `client`'s snapshot: every call sees the same data. `work` takes its share of a
 * common queue and returns when it is empty. A pool without a free connection, or a helper whose
 * import of the snapshot is refused, leaves the work to fewer clients; the first failure of a work
 * is thrown once every work has ended.
 * @param {import('pg').Pool} pool @param {import('pg').PoolClient} client @param {number} wanted
 * @param {(client: import('pg').PoolClient) => Promise<void>} work
 * @returns {Promise<number>} the clients that worked
 */
export async function onSharedSnapshot(pool, client, wanted, work) {
  const free = Math.min(wanted, pool.options.max - pool.totalCount + pool.idleCount);
  const snapshot = free > 0 ? await exportSnapshot(client) : undefined;
  let working = 1;
  const helper = async () => {
    /** @type {import('pg').PoolClient} */
    let other;
    try {
      other = await pool.connect();
    } catch {
      return; // the other clients take its share
    }
    const lost = () => {};
    other.on('error', lost);
    let failed = true;
    try {
      if (!(await importSnapshot(other, /** @type {string} */ (snapshot)))) return;
      working += 1;
      await work(other);
      await other.query('COMMIT');
      failed = false;
    } finally {
      other.off('error', lost);
      other.release(failed);
    }
  };
  const helpers = snapshot ? Array.from({ length: free }, helper) : [];
  const settled = await Promise.allSettled([work(client), ...helpers]);
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw /** @type {PromiseRejectedResult} */ (failure).reason;
  return working;
}

/**
 * Begins `client`'s read-only transaction on `snapshot`; false when PostgreSQL refuses it (the
 * exporting transaction ended meanwhile): the other clients take this one's share.
 * @param {import('pg').PoolClient} client @param {string} snapshot
 */
async function importSnapshot(client, snapshot) {
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The id of `client`'s transaction snapshot (exported on a standby as well, since PostgreSQL 10);
 * undefined for an id of another form, which is not put into SQL.
 * @param {import('pg').PoolClient} client
 */
async function exportSnapshot(client) {
  const { rows } = await client.query('SELECT pg_export_snapshot() AS id');
  return SNAPSHOT_ID.test(rows[0].id) ? String(rows[0].id) : undefined;
}
