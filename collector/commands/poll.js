import { requireCloudController } from '../config/index.js';
import { createPoller } from '../pipeline/poller.js';
import { createCloudControllerSource } from '../sources/cloud-controller/index.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { createPostgresSink } from '../../exporters/postgres/sink/sink.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { formatInstanceTable } from './format.js';

/**
 * One Cloud Controller poll now: samples written to PostgreSQL and printed as a table.
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} deps
 * @returns {Promise<number>} exit code
 */
export function pollCommand(config, { log, out, err }) {
  requireCloudController(config);
  return withMigratedDatabase(config, log, async (pool) => {
    const source = createCloudControllerSource(config, { log });
    try {
      const postgres = createPostgresSink({ pool, log, maxBuffered: config.dbBufferRecords });
      const { self } = createPrometheusSink({ collectDefaultMetrics: false });
      const poller = createPoller({ source, sinks: [postgres], metrics: self, log });
      const outcome = await poller.runOnce();
      if (outcome.records.length) out(formatInstanceTable(outcome.records));
      await postgres.close();
      if (outcome.error) {
        err(`paasmon: poll failed: ${outcome.error.message}`);
        return 1;
      }
      // A typo in CF_APPS must not pass quietly: the others are polled and written, and poll fails.
      const missing = poller.state.lastWarnings.filter((w) => w.reason === 'app_not_found');
      if (missing.length) {
        err(`paasmon: poll: ${missing.map((w) => w.detail).join('; ')} (check CF_APPS)`);
        return 1;
      }
      if (postgres.pending > 0) {
        err(`paasmon: ${postgres.pending} samples could not be written to PostgreSQL: ${postgres.lastError?.message}`);
        return 1;
      }
      out(
        `${outcome.records.length} samples written at ${outcome.records[0]?.ts.toISOString() ?? '-'} ` +
          `(${Math.round(outcome.durationMs)} ms, ${source.client.requests} requests)`,
      );
      return 0;
    } finally {
      await source.close?.();
    }
  });
}
