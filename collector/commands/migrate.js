import { withMigratedDatabase } from '../../exporters/postgres/database.js';

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 */
export function migrateCommand(config, { log, out }) {
  // Every view file again, even unchanged: puts back a view or function changed by hand.
  return withMigratedDatabase(
    config,
    log,
    async (_pool, applied) => {
      out(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
      return 0;
    },
    { views: 'always' },
  );
}
