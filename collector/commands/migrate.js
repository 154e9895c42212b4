import { openDatabase } from '../../exporters/postgres/database.js';
import { migrate } from '../../exporters/postgres/migrate.js';

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 */
export async function migrateCommand(config, { log, out }) {
  const database = await openDatabase(config, { log });
  try {
    const applied = await migrate(database.pool, log);
    out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
  } finally {
    await database.close();
  }
}
