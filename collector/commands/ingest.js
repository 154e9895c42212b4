import { ConfigError } from '../../core/errors.js';
import { requireCloudController } from '../config/index.js';
import { timeFlag } from './flags.js';
import {
  EXPECTED_SKIPS,
  describeVerdict,
  ingestIncrement,
  ingestLines,
  ingestWindow,
  noGorouterLine,
  openLines,
  skippedVerdict,
} from '../pipeline/ingest.js';
import { createAppNameLookup } from '../sources/cloud-controller/app-names.js';
import { createLineSource } from '../sources/router-logs/file.js';
import { createRouterLogSource } from '../sources/router-logs/index.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepWrittenFigures } from '../run-figures.js';

/** @param {import('../pipeline/ingest.js').IngestResult} result */
const describeSkippedAndCleaned = ({ skipped, cleaned }) =>
  (skipped.size ? ` skipped: ${[...skipped].map(([r, n]) => `${r}=${n}`).join(', ')}` : ' skipped: none') +
  `; cleaned: ${cleaned ?? 0}`;

/** @param {string | undefined} text @param {number} fallback */
function ratioFlag(text, fallback) {
  if (text === undefined) return fallback;
  const ratio = /^(0|1|0?\.\d+|1\.0*)$/.test(text.trim()) ? Number(text) : NaN;
  if (Number.isNaN(ratio))
    throw new ConfigError(`--max-skipped-ratio must be a ratio from 0 to 1, e.g. 0.01 (got ${text})`, {
      variable: '--max-skipped-ratio',
    });
  return ratio;
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} deps
 * @param {{ from?: string, to?: string, file?: string, app?: string, maxSkippedRatio?: string }} flags
 * @returns {Promise<number>}
 */
export async function ingestCommand(config, { log, out }, flags) {
  const now = new Date();
  const maxRatio = ratioFlag(flags.maxSkippedRatio, config.ingestMaxSkippedRatio);
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
  // Gorouter lines carry only the app guid: its name comes from --app or the Cloud Controller.
  if (flags.file && !flags.app && !config.cf.api)
    throw new ConfigError('--app NAME is required with --file unless CF_API is set to look names up by app_id', {
      variable: '--app',
    });
  if (flags.file && !flags.app) requireCloudController(config, { apps: false });

  /** @param {import('../pipeline/ingest.js').IngestResult} result */
  const verdict = (result) => {
    const tooMany = skippedVerdict(result, maxRatio, flags.file ? EXPECTED_SKIPS.lines : EXPECTED_SKIPS.documents);
    if (tooMany) throw new Error(`ingest: ${describeVerdict(tooMany, maxRatio)} (--max-skipped-ratio)`);
    return 0;
  };

  return withMigratedDatabase(config, log, (pool) => keepWrittenFigures(pool, log, () => ingestInto(pool)));

  /** @param {import('pg').Pool} pool */
  async function ingestInto(pool) {
    const warn = (/** @type {string} */ reason, /** @type {string} */ detail) => log.warn({ reason }, detail);
    if (flags.file) {
      const lookup = flags.app ? undefined : createAppNameLookup(config, { log });
      try {
        const options = { appName: flags.app, correlationHeader: config.correlationHeader, appNames: lookup?.namesOf };
        const result = await ingestLines(createLineSource(openLines(flags.file), options), { pool, warn });
        const input = flags.file === '-' ? 'stdin' : flags.file;
        out(
          `${result.records} router requests read from ${input}, ${result.inserted} new rows;` +
            describeSkippedAndCleaned(result),
        );
        const notRouterLog = noGorouterLine(result, input);
        if (notRouterLog) throw new Error(`ingest: ${notRouterLog}`);
        return verdict(result);
      } finally {
        lookup?.close();
      }
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
      log.info(
        { busyMs: result.busyMs },
        'ingest: time each stage was busy (source: read + parse + encode; they overlap)',
      );
      out(
        `${result.documents} documents in [${result.from}, ${result.to}), ${result.records} router requests, ` +
          `${result.inserted} new rows;${describeSkippedAndCleaned(result)}`,
      );
      return verdict(result);
    } finally {
      await source.close();
    }
  }
}
