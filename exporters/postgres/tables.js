// Which table each record kind is stored in, its unique key, and how a record becomes a row.
import { copyValue } from './copy-text.js';

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

/** Bytes of a loadgen_requests row besides its run, worker and error: id, time, duration, status, tabs. */
const LOADGEN_ROW_BYTES = 36 + 1 + 27 + 1 + 24 + 1 + 11 + 1;

/**
 * Writes an integer >= 0 as decimal digits, at least `width` of them (zeros in front). No string
 * is made: the load generator writes tens of thousands of rows a second (bench/loadgen.bench.js).
 * @param {Buffer} page @param {number} at @param {number} value @param {number} width
 * @returns {number} the offset after it
 */
function writeDigits(page, at, value, width) {
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  const end = at + Math.max(digits, width);
  let v = value;
  for (let i = end - 1; i >= at; i--) {
    page[i] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return end;
}

/** @param {Buffer} page @param {number} at @param {Uint8Array} bytes @returns {number} the offset after them */
function writeBytes(page, at, bytes) {
  for (let i = 0; i < bytes.length; i++) page[at + i] = bytes[i];
  return at + bytes.length;
}

/** The second being written, as 'YYYY-MM-DDTHH:MM:SS' bytes. */
let encodedSecond = Number.NaN;
let encodedSecondBytes = Buffer.alloc(0);

/**
 * loadgen_requests rows straight from the generator's numbers into a page buffer, in
 * LOADGEN_REQUESTS column order, as the bytes of COPY text lines: the generic column mapper (a
 * record object, a Date, an escape pass per value) was a fifth of the load generator's CPU, and a
 * line as a string still cost a number-to-string, a string join and a copy per row. Times are
 * written to the microsecond (what PostgreSQL keeps), durations in ms to the nanosecond.
 * @param {{ runId: number, worker: string }} run
 */
export function loadgenRowEncoder({ runId, worker }) {
  const head = Buffer.from(`${copyValue(runId)}\t`);
  const tail = Buffer.from(`\t${copyValue(worker)}\n`);
  return {
    /** @param {string | null} error @returns {number} bytes the row takes at most */
    maxBytes: (error) =>
      head.length + LOADGEN_ROW_BYTES + (error === null ? 2 : 2 * Buffer.byteLength(error)) + tail.length,
    /**
     * @param {Buffer} page with room for maxBytes(error) at `at` @param {number} at
     * @param {string} correlationId lower-case UUID @param {number} startedAtMs since 1970, with fractions
     * @param {number} durationMs >= 0 @param {number} status @param {string | null} error
     * @returns {number} the offset after the row
     */
    write(page, at, correlationId, startedAtMs, durationMs, status, error) {
      let o = writeBytes(page, at, head);
      o += page.write(correlationId, o, 'latin1');
      page[o++] = 0x09;
      let micros = Math.round(startedAtMs * 1000);
      const second = Math.floor(micros / 1_000_000);
      micros -= second * 1_000_000;
      if (second !== encodedSecond) {
        encodedSecond = second;
        encodedSecondBytes = Buffer.from(new Date(second * 1000).toISOString().slice(0, 19), 'latin1');
      }
      o = writeBytes(page, o, encodedSecondBytes);
      page[o++] = 0x2e; // .
      o = writeDigits(page, o, micros, 6);
      page[o++] = 0x5a; // Z
      page[o++] = 0x09;
      const durationNanos = Math.round(durationMs * 1e6);
      const wholeMs = Math.floor(durationNanos / 1e6);
      o = writeDigits(page, o, wholeMs, 1);
      page[o++] = 0x2e;
      o = writeDigits(page, o, durationNanos - wholeMs * 1e6, 6);
      page[o++] = 0x09;
      o = writeDigits(page, o, status, 1);
      page[o++] = 0x09;
      if (error === null) {
        page[o++] = 0x5c; // \N
        page[o++] = 0x4e;
      } else o += page.write(copyValue(error), o);
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
