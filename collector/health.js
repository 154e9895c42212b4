// What `collect` answers on its health endpoints. Three questions, three answers:
// /healthz  how is every part doing (people, Prometheus): 503 while PostgreSQL or the Cloud Controller fails;
// /livez    can this process serve at all (Cloud Foundry's liveness check: a failure restarts it, and a
//           restart throws away the buffer kept for outages, so only a stalled event loop fails it);
// /readyz   should the router send it traffic (readiness: a failure only takes it out of the routes):
//           not while the drain's intake is full and PostgreSQL is away, when every body would be refused.
import { setTimeout as sleep } from 'node:timers/promises';
import { describeVerdict } from './pipeline/ingest.js';

/** @typedef {import('./metrics-server.js').Health} Health */

/**
 * @typedef {object} IngestHealth
 * @property {import('./pipeline/job.js').Job} job
 * @property {{ intervalMs: number }} schedule
 * @property {() => ReturnType<typeof import('./pipeline/ingest.js').skippedVerdict>} [lastVerdict]
 */

/**
 * A source is ok while it succeeded within three intervals (or has run for less than that).
 * @param {import('./pipeline/job.js').JobState} state @param {number} intervalMs @param {number} startedAt
 */
function sourceHealth(state, intervalMs, startedAt) {
  const lastSuccess = state.lastSuccessAt?.getTime();
  const window = 3 * intervalMs;
  const ok = lastSuccess !== undefined ? Date.now() - lastSuccess <= window : Date.now() - startedAt <= window;
  return {
    ok,
    body: {
      status: ok ? 'ok' : 'failing',
      lastSuccessAt: state.lastSuccessAt?.toISOString() ?? null,
      lastError: state.lastError ?? null,
      polls: state.polls,
      failures: state.failures,
      skipped: state.skipped,
      warnings: state.lastWarnings.map((w) => w.detail),
    },
  };
}

/** True when PostgreSQL answers `SELECT 1` within 1.5 s. @param {import('pg').Pool} pool */
export async function ping(pool) {
  try {
    await Promise.race([
      pool.query('SELECT 1'),
      sleep(1500).then(() => {
        throw new Error('timeout');
      }),
    ]);
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {object} parts
 * @param {import('./config/index.js').Config} parts.config
 * @param {{ pool: import('pg').Pool, source: string }} parts.database
 * @param {{ pending: number, dropped: number, lastError: Error | undefined }} parts.postgres the samples' sink
 * @param {{ name: string, state: import('./pipeline/job.js').JobState }} parts.poller
 * @param {{ intervalMs: number }} parts.pollSchedule
 * @param {(IngestHealth | undefined)[]} parts.routerIngests the paged sources' reads (search, file, Log Cache)
 * @param {import('./sources/syslog-drain/index.js').Drain | undefined} parts.drain
 * @param {number} parts.startedAt
 * @returns {{ health: () => Promise<Health>, ready: () => Promise<Health> }}
 */
export function healthChecks(parts) {
  const { config, database, postgres, poller, pollSchedule, routerIngests, drain, startedAt } = parts;

  async function health() {
    const reachable = await ping(database.pool);
    const polling = sourceHealth(poller.state, pollSchedule.intervalMs, startedAt);
    /** @type {Record<string, unknown>} */
    const sources = { [poller.name]: polling.body };
    // A failing paged source shows here but does not fail the check: a restart would not mend a
    // search server.
    for (const ingest of routerIngests) {
      if (!ingest) continue;
      const body = sourceHealth(ingest.job.state, ingest.schedule.intervalMs, startedAt).body;
      const tooMany = ingest.lastVerdict?.();
      sources[ingest.job.name] =
        tooMany && body.status === 'ok'
          ? { ...body, status: 'degraded', lastError: describeVerdict(tooMany, config.ingestMaxSkippedRatio) }
          : body;
    }
    // Counters only: a drain nobody sends to is not a failure of the collector.
    if (drain) sources[drain.name] = drain.health();
    const healthy = reachable && polling.ok;
    return {
      healthy,
      body: {
        status: healthy ? 'ok' : 'failing',
        sources,
        database: {
          status: reachable ? 'ok' : 'unreachable',
          source: database.source,
          pendingRecords: postgres.pending,
          droppedRecords: postgres.dropped,
          lastError: postgres.lastError?.message ?? null,
        },
      },
    };
  }

  async function ready() {
    // The database is asked only once the intake is full: a readiness check must answer at once.
    const full = drain !== undefined && drain.receiver.room === 0;
    const away = full && !(await ping(database.pool));
    const drainBody = drain
      ? { buffered: drain.receiver.state().buffered, maxBuffered: config.drain.bufferRecords }
      : {};
    return {
      healthy: !away,
      body: {
        status: away ? 'not_ready' : 'ok',
        ...(away ? { reason: 'the drain buffer is full and PostgreSQL is unreachable' } : {}),
        ...(drain ? { drain: drainBody } : {}),
      },
    };
  }

  return { health, ready };
}
