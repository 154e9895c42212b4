// Where PostgreSQL comes from: DATABASE_URL, a bound CF service, or the embedded server kept
// running under PAASMON_DATA_DIR (embedded/server.js).
import { createRequire } from 'node:module';
import { connectionConfig } from './connection.js';
import { migrate } from './schema/migrate.js';
import { POOL_SIZE } from '../../core/tunables.js';

// CommonJS, so required: imported, its source would be parsed once more at every start for its export names.
const pg = /** @type {typeof import('pg')} */ (createRequire(import.meta.url)('pg'));

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * int8 and numeric as JS numbers: byte counts and aggregates stay far below 2^53.
 * @type {import('pg').CustomTypesConfig}
 */
const numberTypes = {
  getTypeParser: /** @type {any} */ (
    (oid, format) =>
      oid === INT8_OID || oid === NUMERIC_OID
        ? (/** @type {string} */ v) => Number(v)
        : pg.types.getTypeParser(oid, format)
  ),
};

/**
 * What the configuration says about the database (collector/config: DATABASE_URL, a bound
 * service, or PAASMON_DATA_DIR for the embedded server).
 * @typedef {object} DatabaseSettings
 * @property {string | undefined} databaseUrl
 * @property {import('../../core/types.js').DatabaseTls} [databaseTls] TLS settings of the bound service's credentials
 * @property {'env' | 'vcap' | 'embedded'} databaseSource
 * @property {string} dataDir
 */

/**
 * @typedef {object} Database
 * @property {import('pg').Pool} pool
 * @property {'env' | 'vcap' | 'embedded'} source
 * @property {() => Promise<void>} close ends the pool; an embedded server keeps running for other commands
 */

/**
 * @param {DatabaseSettings} config
 * @param {{ log: import('pino').Logger }} deps
 * @returns {Promise<Database>}
 */
export async function openDatabase(config, { log }) {
  /** @type {import('pg').PoolConfig} */
  let poolConfig;
  if (config.databaseUrl) {
    poolConfig = connectionConfig(config.databaseUrl, config.databaseTls);
  } else {
    // Loaded only here: a command given DATABASE_URL never needs the embedded server's modules.
    const { ensureEmbeddedServer } = await import('./embedded/server.js');
    const { port, password } = await ensureEmbeddedServer(config.dataDir, { log });
    poolConfig = { host: '127.0.0.1', port, user: 'paasmon', password, database: 'postgres' };
  }
  const pool = new pg.Pool({
    ...poolConfig,
    max: POOL_SIZE,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    types: numberTypes,
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', (err) => log.warn({ err }, 'postgres: idle connection lost'));
  let closed = false;
  return {
    pool,
    source: config.databaseSource,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end().catch((err) => log.warn({ err }, 'postgres: closing pool'));
    },
  };
}

/**
 * Opens the database, applies pending migrations, runs `work` with the pool (and the names of the
 * migrations applied now), and closes it again: the frame of every command that only needs PostgreSQL.
 * views: see migrate (a command's start applies the view files only when they changed).
 * @template T
 * @param {DatabaseSettings} config @param {import('pino').Logger} log
 * @param {(pool: import('pg').Pool, applied: string[]) => Promise<T>} work
 * @param {{ views?: 'always' | 'changed' }} [options]
 * @returns {Promise<T>}
 */
export async function withMigratedDatabase(config, log, work, { views = 'changed' } = {}) {
  const database = await openDatabase(config, { log });
  try {
    const applied = await migrate(database.pool, log, { views }).catch((err) => {
      throw unreachable(err, config);
    });
    return await work(database.pool, applied);
  } finally {
    await database.close();
  }
}

/** Errors of connecting, as opposed to those of a statement. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);
const CONNECTION_SQLSTATES = new Set(['28P01', '28000', '3D000']); // bad password, no such role/database
/** Node's codes for a server certificate it does not accept. */
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;
const NO_TLS_SERVER = /does not support SSL/i;

/**
 * A connection failure names where the database came from (DATABASE_URL, the bound service, the
 * embedded server) and the host, and what to change for TLS, so the user knows what to fix; other
 * errors are left as they are.
 * @param {unknown} err @param {DatabaseSettings} config
 */
export function unreachable(err, config) {
  const e = /** @type {any} */ (err);
  const first = e instanceof AggregateError && e.errors.length ? e.errors[0] : e;
  const code = first?.code;
  const message = String(first?.message ?? '');
  const tls = typeof code === 'string' && TLS_CODE.test(code);
  if (
    !tls &&
    !NO_TLS_SERVER.test(message) &&
    !CONNECTION_CODES.has(code) &&
    !CONNECTION_SQLSTATES.has(code) &&
    !/timeout/i.test(message)
  ) {
    return err;
  }
  const vcap = config.databaseSource === 'vcap';
  const where = {
    env: 'DATABASE_URL',
    vcap: 'the bound PostgreSQL service (VCAP_SERVICES)',
    embedded: `the embedded server (${config.dataDir})`,
  }[config.databaseSource];
  let host = '';
  try {
    if (config.databaseUrl) host = ` at ${new URL(config.databaseUrl).host}`;
  } catch {
    /* the URL was validated by the config; nothing to add */
  }
  let reason = message || code;
  if (tls && code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    reason = `its TLS certificate does not name this host (${message}); sslmode=verify-ca checks the CA only`;
  } else if (tls) {
    const ca = vcap
      ? 'credentials.sslrootcert of the binding'
      : 'sslrootcert=FILE in DATABASE_URL, or NODE_EXTRA_CA_CERTS';
    reason = `its TLS certificate is not trusted (${code}: ${message}); give the CA that signed it as ${ca}`;
  } else if (NO_TLS_SERVER.test(message)) {
    reason = `the server does not take TLS (${message}); sslmode=disable connects without it`;
  } else if (code === '28000' && /no encryption/.test(message)) {
    const setting = vcap ? 'require_ssl or sslmode in the binding' : 'sslmode=verify-full in DATABASE_URL';
    reason = `${message}; the server wants TLS: ${setting}`;
  }
  return new Error(`PostgreSQL${host} from ${where}: ${reason}`, { cause: err });
}
