// A client of its own from the pool, for work that needs one connection (a transaction, a COPY,
// the migrations' advisory lock).
/**
 * Runs `work` with a client checked out of the pool. A server that goes away while the client is
 * checked out emits 'error' on the client, not the pool: unheard, it ends the process. The
 * statement in flight fails as well, and that failure is what the caller handles. A client whose
 * work failed is discarded (it may be mid-transaction or mid-COPY), not returned to the pool.
 * @template T
 * @param {import('pg').Pool} pool @param {(client: import('pg').PoolClient) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withClient(pool, work) {
  const client = await pool.connect();
  const lost = () => {};
  client.on('error', lost);
  let failed = true;
  try {
    const result = await work(client);
    failed = false;
    return result;
  } finally {
    client.off('error', lost);
    client.release(failed);
  }
}
