// The Log Cache job: every watched app's pages (sources/log-cache) through the page path, one app
// after the other; an app that fails (404: no log access) does not stop the others.
import { SourceError } from '../../core/errors.js';
import { JOB } from '../../core/reason-codes.js';
import { createLogCacheAppSource, explainReadError } from '../sources/log-cache/index.js';
import { ingestFromCheckpoint } from './pages.js';

/**
 * @param {Array<{ guid: string, name: string }>} apps
 * @param {import('../sources/log-cache/index.js').LogCacheReader & { signal?: AbortSignal }} reader
 * @param {import('./pages.js').PagesDeps} deps
 */
export async function ingestLogCache(apps, reader, deps) {
  const total = { records: 0, inserted: 0, samples: 0, envelopes: 0 };
  /** @type {Error[]} */
  const failures = [];
  for (const app of apps) {
    const describeSkip = (/** @type {string} */ reason, /** @type {number} */ n) =>
      `log-cache: ${n} envelopes of ${app.name} skipped: ${reason}`;
    try {
      const source = /** @type {import('../../core/types.js').PagedSource & { checkpointKey: string }} */ (
        createLogCacheAppSource(app, reader)
      );
      const result = await ingestFromCheckpoint(source, { ...deps, describeSkip, signal: reader.signal });
      total.records += result.records;
      total.inserted += result.inserted;
      total.samples += result.byKind.get('instance_sample') ?? 0;
      total.envelopes += result.read;
    } catch (err) {
      failures.push(explainReadError(err, app));
    }
  }
  if (failures.length) {
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more apps)` : '';
    throw new SourceError(`${failures[0].message}${more}`, {
      reason: /** @type {any} */ (failures[0]).reason ?? JOB.ERROR,
      cause: failures[0],
    });
  }
  return total;
}
