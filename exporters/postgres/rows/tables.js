// Which table each record kind is stored in, its unique key, and how a record becomes a row: every
// column with its PostgreSQL type, which drives the one binary COPY encoder (copy-binary.js).

/**
 * @typedef {object} TableSpec
 * @property {string} table
 * @property {string[]} key the unique key: rows already present under it are skipped
 * @property {Array<[column: string, toValue: (record: any) => unknown, type: ColumnType]>} columns in
 *   table order, each with its PostgreSQL type (the binary COPY form its values are written in).
 *   Every time column is timestamptz, kept to the microsecond, whatever form the record carries the
 *   time in (a UTC string, a Date, or Unix milliseconds: copy-binary.js timestampEncoder)
 * @property {boolean} [freshKeys] every record carries a newly drawn key (128 random bits), so a
 *   plain COPY cannot collide and the keyed insert's staging work is not needed
 * @property {string[]} [fillMissing] columns a re-read fills in where the stored row has NULL
 * @property {Array<[column: string, field: string]>} [returning] columns of newly inserted rows that
 *   come back (as record fields) for counting, e.g. in Prometheus
 */

/** @typedef {import('./copy-binary.js').ColumnType} ColumnType */

/** Milliseconds rounded to the nanosecond; anything else as it is. @param {unknown} ms */
export const nanosecondsOf = (ms) => (typeof ms === 'number' ? Math.round(ms * 1e6) / 1e6 : ms);

/** @type {TableSpec} */
const INSTANCE_SAMPLES = {
  table: 'instance_samples',
  key: ['app_guid', 'process_type', 'instance_index', 'ts'],
  columns: [
    ['ts', (r) => r.ts, 'timestamptz'],
    ['app_guid', (r) => r.appGuid, 'text'],
    ['app_name', (r) => r.appName, 'text'],
    ['process_type', (r) => r.processType, 'text'],
    ['instance_index', (r) => r.instanceIndex, 'int4'],
    ['state', (r) => r.state, 'text'],
    ['cpu_percent', (r) => r.cpuPercent, 'float8'],
    ['cpu_entitlement_percent', (r) => r.cpuEntitlementPercent, 'float8'],
    ['mem_bytes', (r) => r.memBytes, 'int8'],
    ['mem_quota_bytes', (r) => r.memQuotaBytes, 'int8'],
    ['disk_bytes', (r) => r.diskBytes, 'int8'],
    ['disk_quota_bytes', (r) => r.diskQuotaBytes, 'int8'],
    ['uptime_s', (r) => r.uptimeSeconds, 'int8'],
    ['repeated', (r) => (r.repeated === true ? true : null), 'bool'],
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
    // To the nanosecond, as the load generator measures it.
    ['duration_ms', (r) => nanosecondsOf(r.durationMs), 'float8'],
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

/** @type {Record<import('../../../core/types.js').RecordKind, TableSpec>} */
export const TABLE_OF_KIND = {
  instance_sample: INSTANCE_SAMPLES,
  router_request: ROUTER_REQUESTS,
  loadgen_request: LOADGEN_REQUESTS,
};

/** @param {string} kind */
export function tableOf(kind) {
  const spec = TABLE_OF_KIND[/** @type {import('../../../core/types.js').RecordKind} */ (kind)];
  if (!spec) throw new Error(`postgres: no table for records of kind ${kind}`);
  return spec;
}
