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

/** Socket errors of reaching the server (not of a statement). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
const TRANSIENT_SQLSTATES = new Set(['53300', '57014', '55P03']);
/** node-pg's own errors for a connection that ended or never came up; they carry no code. */
const CONNECTION_MESSAGE =
  /^Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/**
 * True for a failure to reach PostgreSQL or to keep the connection, which may pass: refused,
 * unresolvable, timed out, SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down,
 * starting up), 53300 (too many connections), 57014 and 55P03 (statement or lock timeout).
 * False for what the server refused (syntax, permission, an object in the way): retrying that
 * fails the same way.
 * @param {unknown} err
 */
export function isConnectionError(err) {
  const e = /** @type {any} */ (err);
  const first = e instanceof AggregateError && e.errors.length ? e.errors[0] : e;
  const code = typeof first?.code === 'string' ? first.code : '';
  if (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code) || TRANSIENT_SQLSTATES.has(code))
    return true;
  return CONNECTION_MESSAGE.test(String(first?.message ?? ''));
}
