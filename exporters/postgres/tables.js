// Which table each record kind is stored in, its unique key, and how a record becomes a row.
import { copyTimestamp, copyValue } from './copy-text.js';

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

/**
 * A loadgen_requests row straight from the generator's numbers, in LOADGEN_REQUESTS column order:
 * the load generator writes tens of thousands a second, and the generic column mapper (a record
 * object, a Date, an escape pass per value) was a fifth of its CPU (bench/loadgen.bench.js profile).
 * @param {{ runId: number, worker: string }} run
 * @returns {(correlationId: string, startedAtMs: number, durationMs: number, status: number,
 *   error: string | null) => string} one COPY line; startedAtMs since 1970, with fractions
 */
export function loadgenRowEncoder({ runId, worker }) {
  const head = `${copyValue(runId)}\t`;
  const tail = `\t${copyValue(worker)}\n`;
  return (correlationId, startedAtMs, durationMs, status, error) =>
    `${head}${correlationId}\t${copyTimestamp(startedAtMs)}\t${durationMs}\t${status}\t${
      error === null ? '\\N' : copyValue(error)
    }${tail}`;
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
