// Work spread over several connections that all read the same data: one transaction exports its
// snapshot (pg_export_snapshot), the others import it (SET TRANSACTION SNAPSHOT), as pg_dump --jobs
// does. One backend computes one query at a time, its sorts on one core: side by side, the queries
// of several runs use the server's other cores.
import { withClient } from '../client.js';

/**
 * Runs `work` on `client`, in a REPEATABLE READ transaction already, and at the same time on up to
 * `wanted` more clients of the pool (those it can give without waiting), each in a read-only
 * transaction on `client`'s snapshot (exported on a standby as well, since PostgreSQL 10): every
 * call sees the same data. `work` takes its share of a common queue and returns when it is empty.
 * The first failure of a work is thrown once every work has ended.
 * @param {import('pg').Pool} pool @param {import('pg').PoolClient} client @param {number} wanted
 * @param {(client: import('pg').PoolClient) => Promise<void>} work
 * @returns {Promise<number>} the clients that worked
 */
export async function onSharedSnapshot(pool, client, wanted, work) {
  const free = Math.min(wanted, pool.options.max - pool.totalCount + pool.idleCount);
  /** @type {Array<Promise<void>>} */
  const helpers = [];
  if (free > 0) {
    const { rows } = await client.query('SELECT pg_export_snapshot() AS id');
    const snapshot = client.escapeLiteral(String(rows[0].id));
    for (let i = 0; i < free; i++) {
      helpers.push(
        withClient(pool, async (other) => {
          await other.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
          await other.query(`SET TRANSACTION SNAPSHOT ${snapshot}`);
          await work(other);
          await other.query('COMMIT');
        }),
      );
    }
  }
  const settled = await Promise.allSettled([work(client), ...helpers]);
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw /** @type {PromiseRejectedResult} */ (failure).reason;
  return 1 + helpers.length;
}
