// `paasmon collect`: migrate, schedule the sources, serve /metrics and /healthz, shut down cleanly.
import { once } from 'node:events';
import { requireCloudController } from './config.js';
import { createHttpServer } from './http.js';
import { createPoller, schedule } from './schedule.js';
import { DEFAULT_BACKOFF, backoffDelay, sleep } from './retry.js';
import { createCloudControllerSource } from './sources/cloud-controller/index.js';
import { migrate, openDatabase } from '../exporters/database.js';
import { createPostgresSink } from '../exporters/postgres.js';
import { createPrometheusSink } from '../exporters/prometheus.js';

const SHUTDOWN_BUDGET_MS = 10_000;
/** After this long a poll in flight at shutdown is aborted, leaving time to flush and close. */
const POLL_GRACE_MS = 5_000;

/**
 * @param {import('./config.js').Config} config
 * @param {{ log: import('pino').Logger }} deps
 * @returns {Promise<{ port: number, stop: () => Promise<void> }>}
 */
export async function startCollector(config, { log }) {
  requireCloudController(config);
  const abort = new AbortController();
  const prometheus = createPrometheusSink();
  const { self } = prometheus;
  const database = await openDatabase(config, { log });
  let dropped = 0;
  const postgres = createPostgresSink({
    pool: database.pool,
    log,
    maxBuffered: config.dbBufferRecords,
    onChange: (e) => {
      self.dbPending.set(e.pending);
      if (e.dropped > dropped) self.dbDropped.inc(e.dropped - dropped);
      dropped = e.dropped;
    },
  });
  const schemaReady = migrateUntilDone(database.pool, log, abort.signal);

  const source = createCloudControllerSource(config, { log });
  const poller = createPoller({ source, sinks: [prometheus, postgres], metrics: self, log, signal: abort.signal });
  const job = schedule(poller, config.pollSchedule, {
    // Written in the background: a slow or absent database must not delay or skip polls.
    afterPoll: () => { void schemaReady.then(async (ok) => { if (ok) await postgres.flush(); }); },
  });
  const startedAt = Date.now();

  const server = createHttpServer({
    registry: prometheus.registry,
    bearerToken: config.metricsBearerToken,
    log,
    health: async () => {
      const reachable = await ping(database.pool);
      const lastSuccess = poller.state.lastSuccessAt?.getTime();
      const window = 3 * job.intervalMs;
      const polling = lastSuccess !== undefined ? Date.now() - lastSuccess <= window : Date.now() - startedAt <= window;
      return {
        healthy: reachable && polling,
        body: {
          status: reachable && polling ? 'ok' : 'failing',
          sources: {
            [source.name]: {
              status: polling ? 'ok' : 'failing',
              lastSuccessAt: poller.state.lastSuccessAt?.toISOString() ?? null,
              lastError: poller.state.lastError ?? null,
              polls: poller.state.polls,
              failures: poller.state.failures,
              skipped: poller.state.skipped,
            },
          },
          database: {
            status: reachable ? 'ok' : 'unreachable',
            source: database.source,
            pendingRecords: postgres.pending,
            droppedRecords: postgres.dropped,
            lastError: postgres.lastError?.message ?? null,
          },
        },
      };
    },
  });
  server.listen(config.port);
  await once(server, 'listening');
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  log.info({ port, schedule: config.pollSchedule, apps: config.cf.apps, database: database.source }, 'collect: started');

  let stopping;
  return {
    port,
    stop() {
      stopping ??= (async () => {
        const deadline = Date.now() + SHUTDOWN_BUDGET_MS - 1000;
        const grace = setTimeout(() => abort.abort(new Error('shutting down')), POLL_GRACE_MS);
        await job.stop();
        clearTimeout(grace);
        abort.abort(new Error('shutting down'));
        server.close();
        server.closeAllConnections();
        if (await schemaReady) {
          await Promise.race([postgres.close(), sleep(Math.max(0, deadline - Date.now()))]);
        }
        if (postgres.pending > 0) log.error({ lost: postgres.pending }, 'collect: records not written at shutdown');
        await source.close?.();
        await database.close();
        log.info('collect: stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Applies migrations, retrying with backoff while the database is unreachable.
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log @param {AbortSignal} signal
 * @returns {Promise<boolean>} false only when shutdown came first
 */
async function migrateUntilDone(pool, log, signal) {
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const applied = await migrate(pool, log);
      if (applied.length) log.info({ applied }, 'postgres: migrations applied');
      return true;
    } catch (err) {
      const delayMs = backoffDelay(attempt, { ...DEFAULT_BACKOFF, baseDelayMs: 1000, maxDelayMs: 30_000 });
      log.warn({ err, retryInMs: delayMs }, 'postgres: migration failed; retrying');
      await sleep(delayMs, signal).catch(() => {});
    }
  }
  return false;
}

/** @param {import('pg').Pool} pool */
async function ping(pool) {
  try {
    await Promise.race([pool.query('SELECT 1'), sleep(1500).then(() => { throw new Error('timeout'); })]);
    return true;
  } catch {
    return false;
  }
}
