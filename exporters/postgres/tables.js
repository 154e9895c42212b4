// Which table each record kind is stored in, its unique key, and how a record becomes a row.
import { cleanedText } from './clean-text.js';
import { POSTGRES_EPOCH_MS, writeInt64 } from './copy-binary.js';

/**
 * @typedef {object} TableSpec
 * @property {string} table
 * @property {string[]} key the unique key: rows already present under it are skipped
 * @property {Array<[column: string, toValue: (record: any) => unknown, type?: BinaryType]>} columns with
 *   every column's type, rows go to COPY in binary format
 * @property {boolean} [freshKeys] every record carries a newly drawn key (128 random bits), so a
 *   plain COPY cannot collide: half the work of the keyed insert
 * @property {string[]} [fillMissing] columns a re-read fills in where the stored row has NULL
 * @property {Array<[column: string, field: string]>} [returning] columns of newly inserted rows that
 *   come back (as record fields) for counting, e.g. in Prometheus
 */

/** @typedef {import('./copy-binary.js').BinaryType} BinaryType */

/** @type {TableSpec} */
const INSTANCE_SAMPLES = {
  table: 'instance_samples',
  key: ['app_guid', 'process_type', 'instance_index', 'ts'],
  columns: [
    ['ts', (r) => r.ts],
    ['app_guid', (r) => r.appGuid],
    ['app_name', (r) => r.appName],
    ['process_type', (r) => r.processType],
    ['instance_index', (r) => r.instanceIndex],
    ['state', (r) => r.state],
    ['cpu_percent', (r) => r.cpuPercent],
    ['cpu_entitlement_percent', (r) => r.cpuEntitlementPercent],
    ['mem_bytes', (r) => r.memBytes],
    ['mem_quota_bytes', (r) => r.memQuotaBytes],
    ['disk_bytes', (r) => r.diskBytes],
    ['disk_quota_bytes', (r) => r.diskQuotaBytes],
    ['uptime_s', (r) => r.uptimeSeconds],
  ],
};

/** @type {TableSpec} */
const ROUTER_REQUESTS = {
  table: 'router_requests',
  key: ['received_at', 'vcap_request_id', 'app_guid'],
  columns: [
    ['received_at', (r) => r.receivedAt, 'timestamptz'],
    ['app_guid', (r) => r.appGuid ?? '', 'text'],
    ['app_name', (r) => r.appName, 'text'],
    ['app_index', (r) => r.appIndex, 'int4'],
    ['instance_id', (r) => r.instanceId, 'text'],
    ['method', (r) => r.method, 'text'],
    ['path', (r) => r.path, 'text'],
    ['status', (r) => r.status, 'int4'],
    ['response_time_ms', (r) => r.responseTimeMs, 'float8'],
    ['gorouter_time_ms', (r) => r.gorouterTimeMs, 'float8'],
    ['response_time_resolution_ms', (r) => r.responseTimeResolutionMs, 'float8'],
    ['bytes_received', (r) => r.bytesReceived, 'int8'],
    ['bytes_sent', (r) => r.bytesSent, 'int8'],
    ['vcap_request_id', (r) => r.vcapRequestId ?? '', 'text'],
    ['correlation_id', (r) => r.correlationId, 'text'],
    ['router_error', (r) => r.routerError, 'text'],
    ['trace_id', (r) => r.traceId, 'text'],
  ],
  // `ingest --file` without a name, then again with --app: the second names the rows.
  fillMissing: ['app_name'],
  returning: [
    ['app_name', 'appName'],
    ['status', 'status'],
    ['response_time_ms', 'responseTimeMs'],
  ],
};

/** @type {TableSpec} */
const LOADGEN_REQUESTS = {
  table: 'loadgen_requests',
  // The start is part of the key of the partitioned table (migration 012): a request read again has the same.
  key: ['run_id', 'correlation_id', 'started_at'],
  columns: [
    ['run_id', (r) => r.runId, 'int8'],
    ['correlation_id', (r) => r.correlationId, 'text'],
    ['started_at', (r) => r.startedAt, 'timestamptz'],
    ['duration_ms', (r) => r.durationMs, 'float8'],
    ['status', (r) => r.status, 'int4'],
    ['error', (r) => r.error, 'text'],
    ['worker', (r) => r.worker, 'text'],
    // Where an imported request came from (migration 011); NULL for paasmon's own load generator.
    ['tool', (r) => r.tool, 'text'],
    ['method', (r) => r.method, 'text'],
    ['url', (r) => r.url, 'text'],
    ['bytes', (r) => r.bytes, 'int8'],
  ],
  freshKeys: true,
};

/** Characters of a correlation id as the load generator draws it (a UUID). */
const CORRELATION_ID_CHARS = 36;
/**
 * Bytes of a loadgen_requests row besides its run, worker and error text: the id, time, duration
 * and status, each after its 4-byte length, and the error's length word.
 */
const LOADGEN_ROW_BYTES = 4 + CORRELATION_ID_CHARS + (4 + 8) + (4 + 8) + (4 + 4) + 4;
/** @param {Buffer} page @param {number} at @param {Uint8Array} bytes @returns {number} the offset after them */
function writeBytes(page, at, bytes) {
  for (let i = 0; i < bytes.length; i++) page[at + i] = bytes[i];
  return at + bytes.length;
}

/**
 * loadgen_requests rows straight from the generator's numbers into a page buffer, in
 * LOADGEN_REQUESTS column order, as the tuples of a binary COPY: the generic column mapper (a
 * record object, a Date, an escape pass per value) was a fifth of the load generator's CPU; a
 * text line still cost digit loops here, and in PostgreSQL a third of its CPU per row went to
 * parsing the text (timestamps above all; bench/loadgen.bench.js). Times are kept to the
 * microsecond (what PostgreSQL keeps), durations in ms to the nanosecond, as the text rows were.
 * @param {{ runId: number, worker: string }} run
 */
export function loadgenRowEncoder({ runId, worker }) {
  // The field count and run_id, the same in every row of the run; then the worker, last.
  const head = Buffer.alloc(2 + 4 + 8);
  head.writeInt16BE(LOADGEN_REQUESTS.columns.length, 0);
  head.writeInt32BE(8, 2);
  writeInt64(head, 6, runId);
  // Text cleaned as clean-text.js says: the worker once, an error (rare) as it comes.
  const cleanWorker = cleanedText(worker);
  const workerBytes = Buffer.from(cleanWorker ?? worker, 'utf8');
  /** Rows written with cleaned text. */
  let cleaned = 0;
  // The worker, then NULL for the columns only imports fill (tool, method, url, bytes).
  const importedOnly = LOADGEN_REQUESTS.columns.length - 7;
  const tail = Buffer.alloc(4 + workerBytes.length + 4 * importedOnly, 0xff);
  tail.writeInt32BE(workerBytes.length, 0);
  workerBytes.copy(tail, 4);
  return {
    /** @param {string | null} error @returns {number} bytes the row takes at most */
    maxBytes: (error) =>
      head.length +
      LOADGEN_ROW_BYTES +
      (error === null ? 0 : Buffer.byteLength(cleanedText(error) ?? error)) +
      tail.length,
    /** Rows written so far whose worker or error text was cleaned. */
    get cleaned() {
      return cleaned;
    },
    /**
     * @param {Buffer} page with room for maxBytes(error) at `at` @param {number} at
     * @param {string} correlationId lower-case UUID @param {number} startedAtMs since 1970, with fractions
     * @param {number} durationMs >= 0 @param {number} status @param {string | null} error
     * @returns {number} the offset after the row
     */
    write(page, at, correlationId, startedAtMs, durationMs, status, error) {
      // maxBytes counts on it; any other id would be cut short or overrun the page.
      if (correlationId.length !== CORRELATION_ID_CHARS) throw new Error(`not a UUID: ${correlationId}`);
      let o = writeBytes(page, at, head);
      page.writeInt32BE(CORRELATION_ID_CHARS, o);
      page.write(correlationId, o + 4, CORRELATION_ID_CHARS, 'latin1');
      o += 4 + CORRELATION_ID_CHARS;
      page.writeInt32BE(8, o);
      writeInt64(page, o + 4, Math.round(startedAtMs * 1000) - POSTGRES_EPOCH_MS * 1000);
      o += 12;
      page.writeInt32BE(8, o);
      page.writeDoubleBE(Math.round(durationMs * 1e6) / 1e6, o + 4);
      o += 12;
      page.writeInt32BE(4, o);
      page.writeInt32BE(status, o + 4);
      o += 8;
      const cleanError = error === null ? undefined : cleanedText(error);
      if (cleanWorker !== undefined || cleanError !== undefined) cleaned += 1;
      if (error === null) {
        page.writeInt32BE(-1, o); // NULL
        o += 4;
      } else {
        const errorBytes = page.write(cleanError ?? error, o + 4, 'utf8');
        page.writeInt32BE(errorBytes, o);
        o += 4 + errorBytes;
      }
      return writeBytes(page, o, tail);
    },
  };
}

/** @type {Record<import('../../core/types.js').RecordKind, TableSpec>} */
export const TABLE_OF_KIND = {
  instance_sample: INSTANCE_SAMPLES,
  router_request: ROUTER_REQUESTS,
  loadgen_request: LOADGEN_REQUESTS,
};

/** @param {string} kind */
export function tableOf(kind) {
  const spec = TABLE_OF_KIND[/** @type {import('../../core/types.js').RecordKind} */ (kind)];
  if (!spec) throw new Error(`postgres: no table for records of kind ${kind}`);
  return spec;
}
