// Which table each record kind is stored in, its unique key, and how a record becomes a row.

/**
 * @typedef {object} TableSpec
 * @property {string} table
 * @property {string[]} key the unique key: rows already present under it are skipped
 * @property {Array<[column: string, toValue: (record: any) => unknown]>} columns
 * @property {boolean} [freshKeys] every record carries a newly drawn key (128 random bits), so a
 *   plain COPY cannot collide: half the work of the keyed insert
 * @property {string[]} [fillMissing] columns a re-read fills in where the stored row has NULL
 * @property {Array<[column: string, field: string]>} [returning] columns of newly inserted rows that
 *   come back (as record fields) for counting, e.g. in Prometheus
 */

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
    ['received_at', (r) => r.receivedAt],
    ['app_guid', (r) => r.appGuid ?? ''],
    ['app_name', (r) => r.appName],
    ['app_index', (r) => r.appIndex],
    ['instance_id', (r) => r.instanceId],
    ['method', (r) => r.method],
    ['path', (r) => r.path],
    ['status', (r) => r.status],
    ['response_time_ms', (r) => r.responseTimeMs],
    ['gorouter_time_ms', (r) => r.gorouterTimeMs],
    ['response_time_resolution_ms', (r) => r.responseTimeResolutionMs],
    ['bytes_received', (r) => r.bytesReceived],
    ['bytes_sent', (r) => r.bytesSent],
    ['vcap_request_id', (r) => r.vcapRequestId ?? ''],
    ['correlation_id', (r) => r.correlationId],
    ['router_error', (r) => r.routerError],
    ['trace_id', (r) => r.traceId],
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
  key: ['run_id', 'correlation_id'],
  columns: [
    ['run_id', (r) => r.runId],
    ['correlation_id', (r) => r.correlationId],
    ['started_at', (r) => r.startedAt],
    ['duration_ms', (r) => r.durationMs],
    ['status', (r) => r.status],
    ['error', (r) => r.error],
    ['worker', (r) => r.worker],
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
/** Midnight 2000-01-01 UTC, where PostgreSQL's binary timestamps count from, in Unix ms. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/**
 * An integer as the 8 bytes of a binary int8; exact for |value| < 2^53 (no BigInt per row).
 * @param {Buffer} page @param {number} at @param {number} value
 */
function writeInt64(page, at, value) {
  const high = Math.floor(value / 2 ** 32);
  page.writeInt32BE(high, at);
  page.writeUInt32BE(value - high * 2 ** 32, at + 4);
}

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
  const workerBytes = Buffer.from(worker, 'utf8');
  const tail = Buffer.alloc(4 + workerBytes.length);
  tail.writeInt32BE(workerBytes.length, 0);
  workerBytes.copy(tail, 4);
  return {
    /** @param {string | null} error @returns {number} bytes the row takes at most */
    maxBytes: (error) =>
      head.length + LOADGEN_ROW_BYTES + (error === null ? 0 : Buffer.byteLength(error)) + tail.length,
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
      if (error === null) {
        page.writeInt32BE(-1, o); // NULL
        o += 4;
      } else {
        const errorBytes = page.write(error, o + 4, 'utf8');
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
