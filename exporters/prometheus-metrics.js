// The Prometheus sink's metric definitions, one function per family, each registered on the given registry.
// Families are defined in a fixed order, which is the order /metrics lists them in.
import client from 'prom-client';
import { LATENCY_BUCKETS } from '../core/latency-buckets.js';

/**
 * A histogram that also takes many values of one label set at once. prom-client has no batch observe, and its
 * series are its own: each value is observed on the label set's child, in the order given, so the series is
 * exactly what observing them one by one leaves (the sum too, to the last bit).
 * @template {string} T
 */
export class BatchHistogram extends client.Histogram {
  /**
   * @param {Partial<Record<T, string | number>>} labels @param {ArrayLike<number>} values
   * @param {number} [divisor] each value is divided by it first (ms to seconds)
   */
  observeAll(labels, values, divisor = 1) {
    if (values.length === 0) return;
    const series = this.labels(labels);
    for (let i = 0; i < values.length; i += 1) series.observe(values[i] / divisor);
  }
}

const INSTANCE_LABELS = /** @type {const} */ (['app', 'app_guid', 'process_type', 'instance_index']);

/** Gauge name -> help and the sample field it shows. */
const INSTANCE_GAUGES = /** @type {const} */ ([
  [
    'paasmon_instance_cpu_percent',
    'CPU of the instance in percent of one core (API fraction x 100; 250 = 2.5 cores).',
    'cpuPercent',
  ],
  [
    'paasmon_instance_cpu_entitlement_percent',
    'CPU of the instance in percent of its entitlement (may exceed 100).',
    'cpuEntitlementPercent',
  ],
  ['paasmon_instance_memory_bytes', 'Memory used by the instance, bytes.', 'memBytes'],
  ['paasmon_instance_memory_quota_bytes', 'Memory quota of the instance, bytes.', 'memQuotaBytes'],
  ['paasmon_instance_disk_bytes', 'Disk used by the instance, bytes.', 'diskBytes'],
  ['paasmon_instance_disk_quota_bytes', 'Disk quota of the instance, bytes.', 'diskQuotaBytes'],
  ['paasmon_instance_uptime_seconds', 'Uptime of the instance, seconds.', 'uptimeSeconds'],
]);

/** The per-instance gauges: one per sample field, and up. @param {client.Registry} registry */
export function defineInstanceMetrics(registry) {
  const gauges = INSTANCE_GAUGES.map(([name, help, field]) => ({
    field,
    gauge: new client.Gauge({ name, help, labelNames: INSTANCE_LABELS, registers: [registry] }),
  }));
  const up = new client.Gauge({
    name: 'paasmon_instance_up',
    help: '1 when the instance state is RUNNING, else 0 (STARTING, CRASHED, DOWN, ...).',
    labelNames: INSTANCE_LABELS,
    registers: [registry],
  });
  return { gauges, up };
}

/** The collector's own metrics: its sources' polls and the PostgreSQL buffer. @param {client.Registry} registry */
export function defineSelfMetrics(registry) {
  return {
    pollDuration: new client.Histogram({
      name: 'paasmon_source_poll_duration_seconds',
      help: 'Duration of one poll of a source, seconds.',
      labelNames: ['source'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    errors: new client.Counter({
      name: 'paasmon_source_errors_total',
      help: 'Failed polls and request failures by source and reason.',
      labelNames: ['source', 'reason'],
      registers: [registry],
    }),
    warnings: new client.Counter({
      name: 'paasmon_source_warnings_total',
      help: 'Polls that succeeded with something missing (e.g. metrics backend down), by reason.',
      labelNames: ['source', 'reason'],
      registers: [registry],
    }),
    retries: new client.Counter({
      name: 'paasmon_source_retries_total',
      help: 'Requests of a source that failed and were tried again, by reason (the poll may still succeed).',
      labelNames: ['source', 'reason'],
      registers: [registry],
    }),
    lastSuccess: new client.Gauge({
      name: 'paasmon_source_last_success_timestamp_seconds',
      help: 'Unix time of the last successful poll of a source.',
      labelNames: ['source'],
      registers: [registry],
    }),
    skipped: new client.Counter({
      name: 'paasmon_source_polls_skipped_total',
      help: 'Polls skipped because the previous poll of the source was still running.',
      labelNames: ['source'],
      registers: [registry],
    }),
    records: new client.Counter({
      name: 'paasmon_source_records_total',
      help: 'Records produced by a source.',
      labelNames: ['source'],
      registers: [registry],
    }),
    ...defineDatabaseMetrics(registry),
  };
}

/**
 * The PostgreSQL sink's buffer and text cleaning, part of the collector's own metrics.
 * @param {client.Registry} registry
 */
function defineDatabaseMetrics(registry) {
  return {
    dbPending: new client.Gauge({
      name: 'paasmon_db_pending_records',
      help: 'Records waiting to be written to PostgreSQL.',
      registers: [registry],
    }),
    dbDropped: new client.Counter({
      name: 'paasmon_db_dropped_records_total',
      help: 'Records dropped because the PostgreSQL buffer was full during an outage.',
      registers: [registry],
    }),
    dbCleaned: new client.Counter({
      name: 'paasmon_db_cleaned_records_total',
      help: 'Records stored with text cleaned (0x00 and bytes that are not UTF-8 replaced by U+FFFD), by kind.',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}

/** Router requests as ingested, the ingest lag and skipped documents. @param {client.Registry} registry */
export function defineRouterMetrics(registry) {
  return {
    responseTime: new BatchHistogram({
      name: 'paasmon_router_response_time_seconds',
      help: 'Router response time (gorouter response_time) of ingested requests, seconds.',
      labelNames: ['app', 'status_class'],
      buckets: [...LATENCY_BUCKETS],
      registers: [registry],
    }),
    requests: new client.Counter({
      name: 'paasmon_router_requests_total',
      help: 'Router requests ingested (each counted once, however often its window is read).',
      labelNames: ['app', 'status_class'],
      registers: [registry],
    }),
    lag: new client.Gauge({
      name: 'paasmon_router_ingest_lag_seconds',
      help: 'How far the router-log checkpoint is behind now, seconds.',
      registers: [registry],
    }),
    skipped: new client.Counter({
      name: 'paasmon_router_skipped_records_total',
      help: 'Router-log documents or lines that could not be used, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
    skippedRatio: new client.Gauge({
      name: 'paasmon_router_skipped_ratio',
      help:
        'Skipped / (read + skipped) of a router-log source over its latest increments holding at least 1000 ' +
        'records (INGEST_MAX_SKIPPED_RATIO marks it degraded).',
      labelNames: ['source'],
      registers: [registry],
    }),
  };
}

/** The load generator's requests and its waits for PostgreSQL. @param {client.Registry} registry */
export function defineLoadgenMetrics(registry) {
  return {
    duration: new client.Histogram({
      name: 'paasmon_loadgen_request_duration_seconds',
      help: 'End-to-end time of load-generator requests, seconds.',
      labelNames: ['run', 'status_class'],
      buckets: [...LATENCY_BUCKETS],
      registers: [registry],
    }),
    requests: new client.Counter({
      name: 'paasmon_loadgen_requests_total',
      help: 'Load-generator requests by outcome (ok, http_4xx, http_5xx, or the error kind).',
      labelNames: ['run', 'outcome'],
      registers: [registry],
    }),
    recordWaits: new client.Counter({
      name: 'paasmon_loadgen_record_waits_total',
      help: 'Times the load generator waited for PostgreSQL: a page of requests was full and every write slot busy.',
      labelNames: ['run'],
      registers: [registry],
    }),
  };
}

/** The syslog drain's messages by outcome and its buffer. @param {client.Registry} registry */
export function defineDrainMetrics(registry) {
  return {
    messages: new client.Counter({
      name: 'paasmon_drain_messages_total',
      help:
        'Syslog drain: accepted (router requests buffered), stored (committed), rejected (unusable), ' +
        'dropped (not router lines), refused (answered 503, the agent resends), unauthorized (requests), by reason.',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    buffered: new client.Gauge({
      name: 'paasmon_drain_buffered_records',
      help: 'Router requests from the drain waiting to be written to PostgreSQL.',
      registers: [registry],
    }),
  };
}

/** Requests by correlation result. @param {client.Registry} registry */
export function defineCorrelationCounter(registry) {
  return new client.Counter({
    name: 'paasmon_correlation_requests_total',
    help: 'Requests by correlation result: matched, loadgen_only, router_only.',
    labelNames: ['result'],
    registers: [registry],
  });
}
