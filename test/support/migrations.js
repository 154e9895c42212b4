// Migrations run by count in a test, as an earlier release applied them or as `down` undoes them.
import fs from 'node:fs';
import { runner } from 'node-pg-migrate';
import { MIGRATIONS_DIR } from '../../exporters/postgres/schema/migrate.js';

/** @param {import('pg').Pool} pool @param {'up' | 'down'} direction @param {number} count */
export async function runMigrations(pool, direction, count) {
  const client = await pool.connect();
  try {
    await runner({
      dbClient: /** @type {any} */ (client),
      dir: MIGRATIONS_DIR,
      direction,
      count,
      migrationsTable: 'paasmon_migrations',
      log: () => {},
    });
  } finally {
    client.release();
  }
}

/** `first` and every migration after it undone, newest first. @param {import('pg').Pool} pool @param {string} first */
export async function undoMigrationsFrom(pool, first) {
  const count = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f >= first).length;
  await runMigrations(pool, 'down', count);
}
