// The jobs of the registry's paged and pushed sources (collector/sources/registry.js), and what follows
// their stored rows, attached here by kind and once for every source: the skipped share of recent
// runs where the source is judged, the correlation counts after new router rows, the health role.
import { SourceError } from '../../core/errors.js';
import { JOB } from '../../core/reason-codes.js';
import { CORRELATION_REFRESH_MS } from '../../core/tunables.js';
import { recentCorrelationCounts } from '../../exporters/postgres/queries/correlation.js';
import { createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
import { describeVerdict, ingestIncrement } from './ingest.js';
import { createJob } from './job.js';
import { ingestFromCheckpoint } from './pages.js';
import { pushedPages } from './pushed-pages.js';
import { createSkippedWindow } from './skipped-window.js';
import { addResult } from './skips.js';

/** @typedef {import('./skips.js').IngestResult} IngestResult */
/** @typedef {import('../../exporters/prometheus.js').PrometheusSink} PrometheusSink */

/**
 * The correlation counts of recent runs, shown to the metrics: at once after a scheduled run (`now`), and
 * for pages pushed many times a second at most once per CORRELATION_REFRESH_MS (`soon`: the last page too).
 * @param {{ pool: import('pg').Pool, prometheus: Pick<PrometheusSink, 'setCorrelationCounts'>,
 *   log: import('pino').Logger, minIntervalMs?: number }} deps
 */
export function createCorrelationRefresh({ pool, prometheus, log, minIntervalMs = CORRELATION_REFRESH_MS }) {
  let last = -Infinity;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  /** @type {Set<Promise<void>>} */
  const running = new Set();
  let closed = false;
  // Runs open or ended within the hour: each run costs a pass over its requests.
  const now = async () => {
    const counting = recentCorrelationCounts(pool, 1).then((runs) => prometheus.setCorrelationCounts(runs));
    running.add(counting);
    try {
      await counting;
    } finally {
      running.delete(counting);
    }
  };
  return {
    now,
    soon() {
      if (closed || timer) return;
      timer = setTimeout(
        () => {
          timer = undefined;
          last = Date.now();
          now().catch((err) => log.warn({ err }, 'correlation counts not refreshed'));
        },
        Math.max(0, last + minIntervalMs - Date.now()),
      );
      timer.unref();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await Promise.allSettled(running);
    },
  };
}

/** @typedef {ReturnType<typeof createCorrelationRefresh>} CorrelationRefresh */

/**
 * @typedef {object} PagedJobDeps
 * @property {string} schedule
 * @property {boolean} routerRows the source yields router requests: new ones refresh the correlation counts
 * @property {number} maxSkippedRatio
 * @property {import('pino').Logger} log
 * @property {PrometheusSink} prometheus
 * @property {import('pg').Pool} pool
 * @property {AbortSignal} signal
 * @property {import('./claims.js').Sharing['holdReader']} holdReader one reader at a time among collectors
 *   side by side
 * @property {CorrelationRefresh} refresh
 */

/**
 * A paged source's job: each run stores its reads, then judges the skipped share and refreshes the correlation.
 * @param {import('../../core/types.js').ScheduledPagedSource} source @param {PagedJobDeps} deps
 */
export function pagedJob(source, deps) {
  const { name, judgedSkips } = source;
  const { prometheus, refresh } = deps;
  const recent = judgedSkips && createSkippedWindow({ maxRatio: deps.maxSkippedRatio, expected: judgedSkips });
  const run = createJob({
    name,
    metrics: prometheus.self,
    log: deps.log,
    signal: deps.signal,
    work: deps.holdReader(name, async (ctx) => {
      const result = await readRun(source, ctx, deps);
      if (recent) {
        recent.add(result);
        prometheus.showSkipped(name, result.skipped, recent.ratio());
        const tooMany = result.skipped.size ? recent.verdict() : undefined;
        if (tooMany) ctx.log.warn({ reason: tooMany.reason }, describeVerdict(tooMany, deps.maxSkippedRatio));
      }
      // New router rows may complete the correlation of recent runs (the views are live; the counter is not).
      if (deps.routerRows && result.inserted > 0) await refresh.now();
      return result;
    }),
  });
  return {
    name,
    schedule: deps.schedule,
    run,
    role: /** @type {const} */ ('router-ingest'),
    lastVerdict: recent ? recent.verdict : undefined,
    close: async () => source.close?.(),
  };
}

/**
 * A run's reads, one after the other; one that fails does not stop the others (Log Cache: an app the user
 * may not read), and the run then fails with the first failure.
 * @param {import('../../core/types.js').ScheduledPagedSource} source
 * @param {import('../../core/types.js').PollContext} ctx @param {PagedJobDeps} deps
 * @returns {Promise<IngestResult>}
 */
async function readRun(source, ctx, { pool, prometheus }) {
  /** @type {IngestResult} */
  const total = { records: 0, inserted: 0, cleaned: 0, skipped: new Map(), examples: new Map() };
  /** @type {Error[]} */
  const failures = [];
  const pages = {
    pool,
    writePage: createPageWriter(pool, prometheus.postgresMetrics),
    metrics: prometheus,
    warn: ctx.warn,
  };
  for (const read of await source.reads(ctx)) {
    try {
      const { window } = read;
      if (window) {
        const result = await ingestIncrement(read.source, { now: ctx.now, ...window, signal: ctx.signal }, pages);
        prometheus.setIngestLag((Date.now() - Date.parse(/** @type {string} */ (result.to))) / 1000);
        addResult(total, result);
      } else {
        const { describeSkip } = read;
        addResult(total, await ingestFromCheckpoint(read.source, { ...pages, describeSkip, signal: ctx.signal }));
      }
    } catch (err) {
      failures.push(read.explain ? read.explain(err) : /** @type {Error} */ (err));
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length) {
    const more = ` (and ${failures.length - 1} more ${source.each ?? 'read'}s)`;
    const reason = /** @type {any} */ (failures[0]).reason ?? JOB.ERROR;
    throw new SourceError(`${failures[0].message}${more}`, { reason, cause: failures[0] });
  }
  return total;
}

/**
 * A pushed source's job: started with the page path of pushed records; its stored router rows refresh
 * the correlation counts.
 * @param {import('../../core/types.js').PushedSource} source
 * @param {{ pool: import('pg').Pool, schemaReady: Promise<boolean>, log: import('pino').Logger,
 *   routerRows: boolean, refresh: CorrelationRefresh, prometheus: Pick<PrometheusSink, 'postgresMetrics'> }} deps
 */
export function pushedJob(source, { pool, schemaReady, log, routerRows, refresh, prometheus }) {
  const afterStored = routerRows ? () => refresh.soon() : undefined;
  const openIntake = pushedPages({ pool, schemaReady, log, afterStored, metrics: prometheus.postgresMetrics });
  return {
    name: source.name,
    trigger: /** @type {const} */ ('push'),
    start: async () => {
      const started = await source.start(openIntake);
      // What the source writes as it stops may still refresh the counts; then no more.
      return { ...started, stop: async () => void (await started.stop(), await refresh.close()) };
    },
  };
}
