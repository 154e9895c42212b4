import { migrate, openDatabase } from '../../exporters/database.js';

/**
 * @param {import('../config.js').Config} config
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
