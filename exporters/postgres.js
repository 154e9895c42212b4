// Sink `postgres`: buffers records, writes them in batches through COPY into a staging table and an
// INSERT that ignores rows already present (so re-writing a batch never duplicates), and keeps them
// in a bounded buffer while the database is unreachable.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import { DEFAULT_BACKOFF, backoffDelay } from '../collector/retry.js';

/**
 * @typedef {object} TableSpec
 * @property {string} table
 * @property {string[]} key the unique key: conflicts on it are ignored
 * @property {Array<[column: string, toValue: (record: any) => unknown]>} columns
 */

/** @type {TableSpec} */
export const INSTANCE_SAMPLES = {
  table: 'instance_samples',
  key: ['app_guid', 'process_type', 'instance_index', 'ts'],
  columns: [
    ['ts', (r) => r.ts], ['app_guid', (r) => r.appGuid], ['app_name', (r) => r.appName],
    ['process_type', (r) => r.processType], ['instance_index', (r) => r.instanceIndex], ['state', (r) => r.state],
    ['cpu_percent', (r) => r.cpuPercent], ['cpu_entitlement_percent', (r) => r.cpuEntitlementPercent],
    ['mem_bytes', (r) => r.memBytes], ['mem_quota_bytes', (r) => r.memQuotaBytes],
    ['disk_bytes', (r) => r.diskBytes], ['disk_quota_bytes', (r) => r.diskQuotaBytes], ['uptime_s', (r) => r.uptimeSeconds],
  ],
};

/** @type {TableSpec} */
export const ROUTER_REQUESTS = {
  table: 'router_requests',
  key: ['received_at', 'vcap_request_id', 'app_guid'],
  columns: [
    ['received_at', (r) => r.receivedAt], ['app_guid', (r) => r.appGuid ?? ''], ['app_name', (r) => r.appName],
    ['app_index', (r) => r.appIndex], ['instance_id', (r) => r.instanceId], ['method', (r) => r.method], ['path', (r) => r.path],
    ['status', (r) => r.status], ['response_time_ms', (r) => r.responseTimeMs], ['gorouter_time_ms', (r) => r.gorouterTimeMs],
    ['response_time_resolution_ms', (r) => r.responseTimeResolutionMs],
    ['bytes_received', (r) => r.bytesReceived], ['bytes_sent', (r) => r.bytesSent], ['vcap_request_id', (r) => r.vcapRequestId ?? ''],
    ['correlation_id', (r) => r.correlationId], ['router_error', (r) => r.routerError], ['trace_id', (r) => r.traceId],
  ],
};

/** @type {TableSpec} */
export const LOADGEN_REQUESTS = {
  table: 'loadgen_requests',
  key: ['run_id', 'correlation_id'],
  columns: [
    ['run_id', (r) => r.runId], ['correlation_id', (r) => r.correlationId], ['started_at', (r) => r.startedAt],
    ['duration_ms', (r) => r.durationMs], ['status', (r) => r.status], ['error', (r) => r.error], ['worker', (r) => r.worker],
  ],
};

/** Which table a source's records go to. */
const TABLE_OF_SOURCE = /** @type {Record<string, TableSpec>} */ ({ 'cloud-controller': INSTANCE_SAMPLES });
const BATCH_ROWS = 5000;

/**
 * One value in COPY text format: \N for null, ISO time for dates, backslash escapes.
 * @param {unknown} value
 */
export function copyValue(value) {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** One COPY line of a record. @param {TableSpec} spec @param {unknown} record */
export function copyLine(spec, record) {
  return `${spec.columns.map(([, toValue]) => copyValue(toValue(record))).join('\t')}\n`;
}

/**
 * COPY `lines` into a staging table, then insert the rows not already present. Runs inside the
 * caller's transaction.
 * @param {import('pg').PoolClient} client @param {TableSpec} spec @param {Iterable<string>} lines
 * @param {string[]} [returning] columns of the rows actually inserted, to return
 * @returns {Promise<any[]>}
 */
export async function copyInsert(client, spec, lines, returning) {
  const staging = `paasmon_staging_${spec.table}`;
  const columns = spec.columns.map(([c]) => c).join(', ');
  await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${staging} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
  await pipeline(Readable.from(chunked(lines)), client.query(copyStreams.from(`COPY ${staging} (${columns}) FROM STDIN`)));
  // DO NOTHING also skips a row that appears twice in one batch (no DISTINCT, no sort needed).
  const result = await client.query(`INSERT INTO ${spec.table} (${columns}) SELECT ${columns} FROM ${staging}
    ON CONFLICT (${spec.key.join(', ')}) DO NOTHING${returning ? ` RETURNING ${returning.join(', ')}` : ''}`);
  return result.rows;
}

/**
 * Lines joined into chunks of about 1 MiB: written one line at a time, COPY spent a quarter of an
 * ingest in socket writes (bench/ingest.bench.js profile).
 * @param {Iterable<string>} lines
 */
function* chunked(lines) {
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length >= 1 << 20) { yield chunk; chunk = ''; }
  }
  if (chunk) yield chunk;
}

/**
 * COPY straight into the table, for rows that cannot exist yet (fresh random ids): half the work
 * of copyInsert. The COPY is atomic: a failed batch leaves nothing behind.
 * @param {import('pg').Pool} pool @param {TableSpec} spec @param {Iterable<string>} lines
 */
export async function copyNew(pool, spec, lines) {
  const client = await pool.connect();
  try {
    await pipeline(Readable.from(chunked(lines)), client.query(copyStreams.from(`COPY ${spec.table} (${spec.columns.map(([c]) => c).join(', ')}) FROM STDIN`)));
    client.release();
  } catch (err) {
    client.release(/** @type {Error} */ (err));
    throw err;
  }
}

/**
 * Runs `work` in a transaction; on error the connection is discarded (it may be mid-COPY).
 * @template T @param {import('pg').Pool} pool @param {(client: import('pg').PoolClient) => Promise<T>} work @returns {Promise<T>}
 */
export async function inTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    client.release(/** @type {Error} */ (err));
    throw err;
  }
}

/**
 * Router requests of one page and, in the same transaction, the reader's checkpoint: the
 * checkpoint never moves past rows that are not committed.
 * @param {import('pg').Pool} pool
 * @param {import('../collector/sources/router-logs/gorouter.js').RouterRequest[]} records
 * @param {{ source: string, position: string }} [checkpoint]
 * @returns {Promise<Array<{ app_name: string | null, status: number | null, response_time_ms: number | null }>>} the rows inserted now
 */
export function writeRouterRequests(pool, records, checkpoint) {
  return inTransaction(pool, async (client) => {
    const inserted = records.length
      ? await copyInsert(client, ROUTER_REQUESTS, records.map((r) => copyLine(ROUTER_REQUESTS, r)), ['app_name', 'status', 'response_time_ms'])
      : [];
    if (checkpoint) {
      await client.query(`INSERT INTO ingest_checkpoints (source, position, updated_at) VALUES ($1, $2, now())
        ON CONFLICT (source) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`, [checkpoint.source, checkpoint.position]);
    }
    return inserted;
  });
}

/** @param {import('pg').Pool} pool @param {string} source @returns {Promise<string | undefined>} */
export async function readCheckpoint(pool, source) {
  const { rows } = await pool.query('SELECT position FROM ingest_checkpoints WHERE source = $1', [source]);
  return rows[0]?.position;
}

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {import('pino').Logger} options.log
 * @param {number} options.maxBuffered records kept while the database is down; beyond it the oldest are dropped and counted
 * @param {import('../collector/retry.js').BackoffOptions} [options.backoff]
 * @param {(event: { pending: number, dropped: number }) => void} [options.onChange]
 */
export function createPostgresSink({ pool, log, maxBuffered, backoff = DEFAULT_BACKOFF, onChange }) {
  /** @type {Array<{ spec: TableSpec, line: string }>} */
  let buffer = [];
  let dropped = 0;
  let failures = 0;
  let nextAttemptAt = 0;
  /** @type {Error | undefined} */
  let lastError;
  /** @type {Promise<void> | undefined} */
  let flushing;
  let closed = false;
  const notify = () => onChange?.({ pending: buffer.length, dropped });

  /** @param {TableSpec} spec @param {string[]} lines */
  async function writeBatch(spec, lines) {
    await inTransaction(pool, (client) => copyInsert(client, spec, lines));
  }

  async function flushNow() {
    while (buffer.length > 0) {
      const spec = buffer[0].spec;
      const batch = [];
      for (const entry of buffer) {
        if (entry.spec !== spec || batch.length >= BATCH_ROWS) break;
        batch.push(entry.line);
      }
      await writeBatch(spec, batch);
      buffer = buffer.slice(batch.length);
      notify();
    }
  }

  /** @param {{ force?: boolean }} [options] */
  async function flush(options = {}) {
    if (flushing) return flushing;
    if (buffer.length === 0) return;
    if (!options.force && Date.now() < nextAttemptAt) return;
    flushing = (async () => {
      try {
        await flushNow();
        if (failures > 0) log.info({ failures }, 'postgres: writing again after an outage');
        failures = 0;
        lastError = undefined;
      } catch (err) {
        lastError = /** @type {Error} */ (err);
        const delay = backoffDelay(failures, { ...backoff, retries: Infinity });
        failures += 1;
        nextAttemptAt = Date.now() + delay;
        log.warn({ err, pending: buffer.length, retryInMs: delay }, 'postgres: write failed; records kept for the next attempt');
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  }

  return {
    name: 'postgres',
    /** @param {any[]} records @param {{ source: string }} meta */
    write(records, meta) {
      const spec = TABLE_OF_SOURCE[meta.source];
      if (!spec) throw new Error(`postgres sink: no table for source ${meta.source}`);
      for (const record of records) {
        buffer.push({ spec, line: copyLine(spec, record) });
      }
      const overflow = buffer.length - maxBuffered;
      if (overflow > 0) {
        buffer = buffer.slice(overflow);
        dropped += overflow;
        log.error({ dropped: overflow, droppedTotal: dropped, maxBuffered }, 'postgres: buffer full while the database is unreachable; oldest records dropped (raise DB_BUFFER_RECORDS)');
      }
      notify();
    },
    flush,
    async close() {
      if (closed) return;
      closed = true;
      await flush({ force: true });
      if (buffer.length > 0) log.error({ lost: buffer.length }, 'postgres: records could not be written before shutdown');
    },
    /** Records waiting to be written. */
    get pending() { return buffer.length; },
    /** Records dropped because the buffer was full. */
    get dropped() { return dropped; },
    /** The last write error, cleared by a successful write. */
    get lastError() { return lastError; },
  };
}

/** @typedef {ReturnType<typeof createPostgresSink>} PostgresSink */
