// The schema: sql/migrations/*.sql applied in order by node-pg-migrate, recorded in paasmon_migrations.
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import { withClient } from './client.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../sql/migrations/', import.meta.url));

/**
 * Applies pending migrations under an advisory lock (safe with several collectors).
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log
 * @returns {Promise<string[]>} names of the migrations applied now
 */
export async function migrate(pool, log) {
  const applied = await withClient(pool, (client) =>
    runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      migrationsTable: 'paasmon_migrations',
      checkOrder: true,
      // Several paasmon processes (load-generator instances, collectors) may start together.
      advisoryLockMode: 'wait',
      log: (message) => log.debug({ migration: message }, 'migrate'),
    }),
  );
  return applied.map((m) => m.name);
}
