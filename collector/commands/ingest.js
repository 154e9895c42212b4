import { ConfigError } from '../errors.js';
import { ingestIncrement, ingestLines, ingestWindow, openLines } from '../ingest.js';
import { createRouterLogSource } from '../sources/router-logs/index.js';
import { withMigratedDatabase } from '../../exporters/database.js';

/**
 * An ISO 8601 time, `now`, or `now-<duration>` such as now-15m.
 * @param {string} text @param {string} flag @param {Date} now
 */
export function parseTimeFlag(text, flag, now) {
  const relative = /^now(?:-(\d+)(s|m|h|d))?$/.exec(text.trim());
  if (relative) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[/** @type {'s'} */ (relative[2] ?? 's')];
    return new Date(now.getTime() - Number(relative[1] ?? 0) * unit).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text.trim())) {
    throw new ConfigError(`${flag} must be an ISO 8601 time with a zone (2026-11-22T10:00:00Z) or now-<n>(s|m|h|d), got ${JSON.stringify(text)}`, { variable: flag });
  }
  return new Date(text).toISOString();
}

/** @param {Map<string, number>} skipped */
const describeSkipped = (skipped) => (skipped.size ? ` skipped: ${[...skipped].map(([r, n]) => `${r}=${n}`).join(', ')}` : ' skipped: none');

/**
 * @param {import('../config.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 * @param {{ from?: string, to?: string, file?: string, app?: string }} flags
 * @returns {Promise<number>}
 */
export async function ingestCommand(config, { log, out }, flags) {
  const now = new Date();
  if ((flags.from === undefined) !== (flags.to === undefined)) throw new ConfigError('--from and --to go together', { variable: flags.from ? '--to' : '--from' });
  const window = flags.from && flags.to ? { from: parseTimeFlag(flags.from, '--from', now), to: parseTimeFlag(flags.to, '--to', now) } : undefined;
  if (window && window.from >= window.to) throw new ConfigError(`--from (${window.from}) must be before --to (${window.to})`, { variable: '--from' });
  if (!flags.file && !config.search.url) throw new ConfigError('SEARCH_URL is required to ingest from Elasticsearch/OpenSearch (or use --file PATH|-)', { variable: 'SEARCH_URL' });

  return withMigratedDatabase(config, log, async (pool) => {
    const warn = (/** @type {string} */ reason, /** @type {string} */ detail) => log.warn({ reason }, detail);
    if (flags.file) {
      const result = await ingestLines(openLines(flags.file), { appName: flags.app, correlationHeader: config.correlationHeader }, { pool, warn });
      out(`${result.records} router requests read from ${flags.file === '-' ? 'stdin' : flags.file}, ${result.inserted} new rows;${describeSkipped(result.skipped)}`);
      return 0;
    }
    const source = createRouterLogSource(config, { log });
    try {
      const deps = { pool, warn };
      const result = window
        ? await ingestWindow(source, window, deps)
        : await ingestIncrement(source, { now, delayMs: config.ingestDelayMs, lookbackMs: config.ingestLookbackMs }, deps);
      out(`${result.documents} documents in [${result.from}, ${result.to}), ${result.records} router requests, ${result.inserted} new rows;${describeSkipped(result.skipped)}`);
      return 0;
    } finally {
      await source.close();
    }
  });
}
