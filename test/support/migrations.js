// Migrations undone in a test: `first` and every migration after it, newest first, as `down` would.
import fs from 'node:fs';
import { runner } from 'node-pg-migrate';
import { MIGRATIONS_DIR } from '../../exporters/postgres/schema/migrate.js';

/** @param {import('pg').Pool} pool @param {string} first the file name's number, e.g. '019' */
export async function undoMigrationsFrom(pool, first) {
  const client = await pool.connect();
  try {
    await runner({
      dbClient: /** @type {any} */ (client),
      dir: MIGRATIONS_DIR,
      direction: 'down',
      count: fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f >= first).length,
      migrationsTable: 'paasmon_migrations',
      log: () => {},
    });
  } finally {
    client.release();
  }
}
