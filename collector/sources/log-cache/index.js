// Source `log-cache`: for each watched app, the envelopes Log Cache holds since the last checkpoint
// (it keeps minutes, in memory: a live source, not history), as a paged source (core/types.js
// PagedSource) per app. RTR lines -> router requests; container gauges -> instance samples at the
// gauges' own timestamps, in a page of their own just before the router rows of the same read (a
// crash in between reads both again; both writes ignore what is already there). Same UAA token as
// the Cloud Controller.
import { SourceError } from '../../../core/errors.js';
import { LOG_CACHE } from '../../../core/reason-codes.js';
import { LOG_CACHE_SETTLE_MS } from '../../../core/tunables.js';
import { headerLogField } from '../gorouter/correlation-ids.js';
import { readEnvelopes } from './client.js';
import { instanceSamplesFromGauges, routerRequestFromEnvelope } from './envelopes.js';

/** @typedef {import('../../../core/types.js').SourcePage} SourcePage */
/**
 * @typedef {ReturnType<typeof import('../cloud-controller/index.js').createCloudControllerSource>}
 *   CloudControllerSource
 */

/**
 * @typedef {object} LogCacheReader
 * @property {(url: string, signal?: AbortSignal) => Promise<any>} get the JSON body of a GET with the UAA token
 * @property {string} baseUrl
 * @property {Date} now
 * @property {number} lookbackMs where an app without a checkpoint starts: now - lookback
 * @property {string} [correlationField]
 */

/**
 * Log Cache as `collect` reads it: a read per watched app a run, with the Cloud Controller's UAA token.
 * @param {import('../../config/index.js').Config} config
 * @param {{ cloudController: CloudControllerSource }} deps
 * @returns {import('../../../core/types.js').ScheduledPagedSource}
 */
export function logCacheJobSource(config, { cloudController }) {
  const { client } = cloudController;
  const correlationField = headerLogField(config.correlationHeader);
  const get = async (/** @type {string} */ url, /** @type {AbortSignal | undefined} */ signal) =>
    (await client.get(url, signal)).data;
  return {
    name: 'log-cache',
    each: 'app',
    async reads(ctx) {
      const auto = config.logCache.url === 'auto';
      const baseUrl = auto ? (await client.discovery(ctx.signal)).logCacheUrl : config.logCache.url;
      if (!baseUrl) {
        throw new SourceError('log-cache: the Cloud Controller root lists no log_cache link; set LOG_CACHE_URL', {
          reason: LOG_CACHE.DISCOVERY,
        });
      }
      const reader = { get, baseUrl, now: ctx.now, lookbackMs: config.logCache.lookbackMs, correlationField };
      return (await cloudController.watchedApps(ctx)).map((app) => ({
        source: createLogCacheAppSource(app, reader),
        describeSkip: (reason, n) => `log-cache: ${n} envelopes of ${app.name} skipped: ${reason}`,
        explain: (err) => explainReadError(err, app),
      }));
    },
  };
}

/**
 * One app's envelopes from its checkpoint (or now - lookback) to now - settle, page by page; each
 * page's position is the nanosecond timestamp it reached.
 * @param {{ guid: string, name: string }} app @param {LogCacheReader} reader
 * @returns {import('../../../core/types.js').PagedSource & { checkpointKey: string }}
 */
export function createLogCacheAppSource(app, { get, baseUrl, now, lookbackMs, correlationField }) {
  const nanos = (/** @type {number} */ ms) => BigInt(ms) * 1_000_000n;
  return {
    name: 'log-cache',
    checkpointKey: `log-cache:${app.guid}`,
    async *readPages(checkpoint, { until, signal } = {}) {
      const end = until ? BigInt(until) : nanos(now.getTime() - LOG_CACHE_SETTLE_MS);
      const start =
        checkpoint !== undefined && /^\d+$/.test(checkpoint) ? BigInt(checkpoint) : nanos(now.getTime() - lookbackMs);
      if (start >= end) return;
      for await (const page of readEnvelopes(get, { baseUrl, sourceId: app.guid, start, end, signal }))
        yield* pagesOf(page, app, correlationField);
      yield { kind: 'router_request', records: [], skipped: new Map(), read: 0, position: String(end) };
    },
  };
}

/**
 * One read answer -> its instance samples (no position of their own), then its router requests.
 * @param {{ envelopes: any[], invalid: number, position: bigint }} page
 * @param {{ guid: string, name: string }} app @param {string | undefined} correlationField
 * @returns {Generator<SourcePage>}
 */
function* pagesOf(page, app, correlationField) {
  /** @type {Map<string, number>} */
  const skipped = new Map();
  const skip = (/** @type {string} */ reason, n = 1) => skipped.set(reason, (skipped.get(reason) ?? 0) + n);
  if (page.invalid) skip(LOG_CACHE.BAD_ENVELOPE, page.invalid);
  /** @type {import('../../../core/types.js').RouterRequest[]} */
  const records = [];
  for (const envelope of page.envelopes) {
    const mapped = routerRequestFromEnvelope(envelope, { correlationField, appName: app.name });
    if (mapped.ok) records.push(mapped.record);
    else if (!mapped.ignored) skip(mapped.reason);
  }
  const gauges = instanceSamplesFromGauges(page.envelopes, { appGuid: app.guid, appName: app.name });
  if (gauges.invalid) skip(LOG_CACHE.BAD_INSTANCE_ID, gauges.invalid);
  if (gauges.samples.length) yield { kind: 'instance_sample', records: gauges.samples, skipped: new Map(), read: 0 };
  yield { kind: 'router_request', records, skipped, read: page.envelopes.length, position: String(page.position) };
}

/**
 * A 404 from Log Cache means "no access to this source id" as often as "unknown".
 * @param {unknown} err @param {{ guid: string, name: string }} app
 */
export function explainReadError(err, app) {
  const status = /** @type {any} */ (err)?.status;
  if (status === 404) {
    return new SourceError(
      `log-cache: 404 for app ${app.name} (${app.guid}): the CF user may not read this app's logs ` +
        '(it needs a space developer or space auditor role, or the logs.admin scope)',
      { reason: LOG_CACHE.NO_ACCESS, cause: err },
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}
