import { ConfigError } from '../../core/errors.js';
import { timeFlag } from './flags.js';
import { ingestIncrement, ingestLines, ingestWindow, openLines } from '../pipeline/ingest.js';
import { createRouterLogSource } from '../sources/router-logs/index.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';

/** @param {Map<string, number>} skipped */
const describeSkipped = (skipped) =>
  skipped.size ? ` skipped: ${[...skipped].map(([r, n]) => `${r}=${n}`).join(', ')}` : ' skipped: none';

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 * @param {{ from?: string, to?: string, file?: string, app?: string }} flags
 * @returns {Promise<number>}
 */
export async function ingestCommand(config, { log, out }, flags) {
  const now = new Date();
  if ((flags.from === undefined) !== (flags.to === undefined))
    throw new ConfigError('--from and --to go together', { variable: flags.from ? '--to' : '--from' });
  const window =
    flags.from && flags.to
      ? { from: timeFlag(flags.from, '--from', now), to: timeFlag(flags.to, '--to', now) }
      : undefined;
  if (window && window.from >= window.to)
    throw new ConfigError(`--from (${window.from}) must be before --to (${window.to})`, { variable: '--from' });
  if (!flags.file && !config.search.url)
    throw new ConfigError('SEARCH_URL is required to ingest from Elasticsearch/OpenSearch (or use --file PATH|-)', {
      variable: 'SEARCH_URL',
    });

  return withMigratedDatabase(config, log, async (pool) => {
    const warn = (/** @type {string} */ reason, /** @type {string} */ detail) => log.warn({ reason }, detail);
    if (flags.file) {
      const result = await ingestLines(
        openLines(flags.file),
        { appName: flags.app, correlationHeader: config.correlationHeader },
        { pool, warn },
      );
      out(
        `${result.records} router requests read from ${flags.file === '-' ? 'stdin' : flags.file}, ` +
          `${result.inserted} new rows;${describeSkipped(result.skipped)}`,
      );
      return 0;
    }
    const source = createRouterLogSource(config, { log });
    try {
      const deps = { pool, warn };
      const result = window
        ? await ingestWindow(source, window, deps)
        : await ingestIncrement(
            source,
            { now, delayMs: config.ingestDelayMs, lookbackMs: config.ingestLookbackMs },
            deps,
          );
      log.info({ busyMs: result.busyMs }, 'ingest: time each stage was busy (source: read + parse; they overlap)');
      out(
        `${result.documents} documents in [${result.from}, ${result.to}), ${result.records} router requests, ` +
          `${result.inserted} new rows;${describeSkipped(result.skipped)}`,
      );
      return 0;
    } finally {
      await source.close();
    }
  });
}
