import { requireCloudController } from '../config/index.js';
import { createPoller } from '../pipeline/poller.js';
import { createCloudControllerSource } from '../sources/cloud-controller/index.js';
import { openDatabase } from '../../exporters/postgres/database.js';
import { migrate } from '../../exporters/postgres/migrate.js';
import { createPostgresSink } from '../../exporters/postgres/sink.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { formatInstanceTable } from './format.js';

/**
 * One Cloud Controller poll now: samples written to PostgreSQL and printed as a table.
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 * @returns {Promise<number>} exit code
 */
export async function pollCommand(config, { log, out }) {
  requireCloudController(config);
  const database = await openDatabase(config, { log });
  const source = createCloudControllerSource(config, { log });
  try {
    await migrate(database.pool, log);
    const postgres = createPostgresSink({ pool: database.pool, log, maxBuffered: config.dbBufferRecords });
    const { self } = createPrometheusSink({ collectDefaultMetrics: false });
    const poller = createPoller({ source, sinks: [postgres], metrics: self, log });
    const outcome = await poller.runOnce();
    if (outcome.records.length) out(formatInstanceTable(outcome.records));
    await postgres.close();
    if (outcome.error) {
      out(`poll failed: ${outcome.error.message}`);
      return 1;
    }
    if (postgres.pending > 0) {
      out(`${postgres.pending} samples could not be written to PostgreSQL: ${postgres.lastError?.message}`);
      return 1;
    }
    out(
      `${outcome.records.length} samples written at ${outcome.records[0]?.ts.toISOString() ?? '-'} ` +
        `(${Math.round(outcome.durationMs)} ms, ${source.client.requests} requests)`,
    );
    return 0;
  } finally {
    await source.close?.();
    await database.close();
  }
}
