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
    const staging = `paasmon_staging_${spec.table}`;
    const columns = spec.columns.map(([c]) => c).join(', ');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${staging} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`);
      const copy = client.query(copyStreams.from(`COPY ${staging} (${columns}) FROM STDIN`));
      await pipeline(Readable.from(lines), copy);
      await client.query(`INSERT INTO ${spec.table} (${columns}) SELECT ${columns} FROM ${staging} ON CONFLICT (${spec.key.join(', ')}) DO NOTHING`);
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      // Discard the connection: it may be mid-COPY or broken. The server rolls the transaction back.
      client.release(/** @type {Error} */ (err));
      throw err;
    }
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
        buffer.push({ spec, line: `${spec.columns.map(([, toValue]) => copyValue(toValue(record))).join('\t')}\n` });
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
