// Source `log-cache`: for each watched app, the envelopes Log Cache holds since the last checkpoint
// (it keeps minutes, in memory: a live source, not history). RTR lines -> router requests; container
// gauges -> instance samples at the gauges' own timestamps. Same UAA token as the Cloud Controller.
import { SourceError } from '../../../core/errors.js';
import { readCheckpoint } from '../../../exporters/postgres/checkpoints.js';
import { createPageWriter } from '../../../exporters/postgres/page-writer.js';
import { readEnvelopes } from './client.js';
import { instanceSamplesFromGauges, routerRequestFromEnvelope } from './envelopes.js';

/** Envelopes reach the cache a moment after they happen (agent batching): read up to now minus this. */
const SETTLE_MS = 2000;

/**
 * @typedef {object} LogCacheDeps
 * @property {import('pg').Pool} pool where the checkpoints are read
 * @property {import('../../../core/types.js').PageWriter} [writePage] default: the PostgreSQL page writer on `pool`
 * @property {(url: string, signal?: AbortSignal) => Promise<any>} get
 * @property {string} baseUrl
 * @property {Pick<import('../../../core/types.js').Sink, 'write'>} [metrics] shown the newly stored router requests
 * @property {(reason: string, detail: string) => void} [warn]
 */

/**
 * One app from its checkpoint (or now - lookback) to now: each page committed with the checkpoint.
 * @param {{ guid: string, name: string }} app
 * @param {{ now: Date, lookbackMs: number, correlationField?: string, signal?: AbortSignal }} options
 * @param {LogCacheDeps} deps
 */
export async function ingestApp(app, options, deps) {
  const key = `log-cache:${app.guid}`;
  const writePage = deps.writePage ?? createPageWriter(deps.pool);
  const end = BigInt(options.now.getTime() - SETTLE_MS) * 1_000_000n;
  const saved = await readCheckpoint(deps.pool, key);
  const lookbackStart = BigInt(options.now.getTime() - options.lookbackMs) * 1_000_000n;
  const start = saved !== undefined && /^\d+$/.test(saved) ? BigInt(saved) : lookbackStart;
  const result = {
    envelopes: 0,
    routerRequests: 0,
    inserted: 0,
    samples: 0,
    skipped: /** @type {Map<string, number>} */ (new Map()),
  };
  const skip = (/** @type {string} */ reason, n = 1) =>
    result.skipped.set(reason, (result.skipped.get(reason) ?? 0) + n);
  if (start >= end) return result;
  for await (const page of readEnvelopes(deps.get, {
    baseUrl: deps.baseUrl,
    sourceId: app.guid,
    start,
    end,
    signal: options.signal,
  })) {
    if (page.invalid) skip('bad_envelope', page.invalid);
    /** @type {import('../../../core/types.js').RouterRequest[]} */
    const records = [];
    for (const envelope of page.envelopes) {
      const mapped = routerRequestFromEnvelope(envelope, {
        correlationField: options.correlationField,
        appName: app.name,
      });
      if (mapped.ok) records.push(mapped.record);
      else if (!mapped.ignored) skip(mapped.reason);
    }
    const gauges = instanceSamplesFromGauges(page.envelopes, { appGuid: app.guid, appName: app.name });
    if (gauges.invalid) skip('bad_instance_id', gauges.invalid);
    // Samples first, then the router rows with the checkpoint: a crash in between re-reads the page,
    // and both writes ignore what is already there.
    if (gauges.samples.length) await writePage({ kind: 'instance_sample', records: gauges.samples });
    const inserted = await writePage({
      kind: 'router_request',
      records,
      checkpoint: { source: key, position: String(page.position) },
      countOnly: !deps.metrics,
    });
    deps.metrics?.write(inserted.records);
    result.envelopes += page.envelopes.length;
    result.routerRequests += records.length;
    result.inserted += inserted.count;
    result.samples += gauges.samples.length;
  }
  await writePage({ kind: 'router_request', records: [], checkpoint: { source: key, position: String(end) } });
  return result;
}

/**
 * Every app, one after the other; an app that fails (404: no log access) does not stop the others.
 * @param {Array<{ guid: string, name: string }>} apps
 * @param {{ now: Date, lookbackMs: number, correlationField?: string, signal?: AbortSignal }} options
 * @param {LogCacheDeps} deps
 */
export async function ingestApps(apps, options, deps) {
  const total = { records: 0, inserted: 0, samples: 0, envelopes: 0 };
  /** @type {Error[]} */
  const failures = [];
  for (const app of apps) {
    try {
      const r = await ingestApp(app, options, deps);
      total.records += r.routerRequests + r.samples;
      total.inserted += r.inserted;
      total.samples += r.samples;
      total.envelopes += r.envelopes;
      for (const [reason, n] of r.skipped)
        deps.warn?.(reason, `log-cache: ${n} envelopes of ${app.name} skipped: ${reason}`);
    } catch (err) {
      failures.push(explain(err, app));
    }
  }
  if (failures.length) {
    throw new SourceError(
      `${failures[0].message}${failures.length > 1 ? ` (and ${failures.length - 1} more apps)` : ''}`,
      {
        reason: /** @type {any} */ (failures[0]).reason ?? 'error',
        cause: failures[0],
      },
    );
  }
  return total;
}

/**
 * A 404 from Log Cache means "no access to this source id" as often as "unknown".
 * @param {unknown} err @param {{ guid: string, name: string }} app
 */
function explain(err, app) {
  const status = /** @type {any} */ (err)?.status;
  if (status === 404) {
    return new SourceError(
      `log-cache: 404 for app ${app.name} (${app.guid}): the CF user may not read this app's logs ` +
        '(it needs a space developer or space auditor role, or the logs.admin scope)',
      { reason: 'log_cache_no_access', cause: err },
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}
