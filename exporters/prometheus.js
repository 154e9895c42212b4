// Sink `prometheus`: the contract's gauges on paasmon's own prom-client registry, plus the
// collector's own metrics. Nothing here does I/O; /metrics renders the registry.
import client from 'prom-client';
import { statusClass } from '../core/ids.js';
import { cleanedRecords as cleanedSinceStart } from './postgres/clean-text.js';

const INSTANCE_LABELS = /** @type {const} */ (['app', 'app_guid', 'process_type', 'instance_index']);

/** Latency buckets, 1 ms to 30 s, for the router and the load generator alike (so they compare). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

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

/**
 * @param {{ collectDefaultMetrics?: boolean, cleanedRecords?: () => ReadonlyMap<string, number> }} [options]
 *   cleanedRecords: records stored with cleaned text since start, by kind (default: this process's) */
export function createPrometheusSink(options = {}) {
  const registry = new client.Registry();
  if (options.collectDefaultMetrics ?? true)
    client.collectDefaultMetrics({ register: registry, prefix: 'paasmon_process_' });

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
  const self = {
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
      collect() {
        this.reset();
        for (const [kind, n] of (options.cleanedRecords ?? cleanedSinceStart)()) this.inc({ kind }, n);
      },
    }),
  };

  const router = {
    responseTime: new client.Histogram({
      name: 'paasmon_router_response_time_seconds',
      help: 'Router response time (gorouter response_time) of ingested requests, seconds.',
      labelNames: ['app', 'status_class'],
      buckets: LATENCY_BUCKETS,
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

  const loadgen = {
    duration: new client.Histogram({
      name: 'paasmon_loadgen_request_duration_seconds',
      help: 'End-to-end time of load-generator requests, seconds.',
      labelNames: ['run', 'status_class'],
      buckets: LATENCY_BUCKETS,
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
  const drain = {
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
  const correlation = new client.Counter({
    name: 'paasmon_correlation_requests_total',
    help: 'Requests by correlation result: matched, loadgen_only, router_only.',
    labelNames: ['result'],
    registers: [registry],
  });
  /** @type {Map<string, number>} */
  const correlationSeen = new Map();

  /** @param {import('../core/types.js').InstanceSample} s */
  const labelsOf = (s) => ({
    app: s.appName,
    app_guid: s.appGuid,
    process_type: s.processType,
    instance_index: String(s.instanceIndex),
  });

  /** @param {import('../core/types.js').InstanceSample} sample */
  const showSample = (sample) => {
    const labels = labelsOf(sample);
    for (const { field, gauge } of gauges) {
      const value = sample[field];
      if (value === null) gauge.remove(labels);
      else gauge.set(labels, value);
    }
    up.set(labels, sample.state === 'RUNNING' ? 1 : 0);
  };

  /** @param {import('../core/types.js').RouterRequest} request */
  const countRouterRequest = (request) => {
    const labels = { app: request.appName ?? '', status_class: statusClass(request.status) };
    router.requests.inc(labels);
    if (request.responseTimeMs !== null) router.responseTime.observe(labels, request.responseTimeMs / 1000);
  };

  /** @param {import('../core/types.js').LoadgenRequest} request */
  const countLoadgenRequest = (request) => {
    const run = String(request.runId);
    loadgen.duration.observe({ run, status_class: statusClass(request.status) }, request.durationMs / 1000);
    const outcome = request.error ?? (request.status >= 500 ? 'http_5xx' : request.status >= 400 ? 'http_4xx' : 'ok');
    loadgen.requests.inc({ run, outcome });
  };

  return {
    name: 'prometheus',
    registry,
    self,
    /**
     * Records of every kind, each shown by its kind. Router requests must be the newly stored ones
     * (what the page writer returned), so re-reading a window counts nothing twice.
     *
     * A complete poll of instance samples replaces every instance series, so an instance that is
     * gone (scaled down, app deleted) loses its series now; a partial poll only updates what it
     * saw. Both happen in one synchronous step, so a scrape never sees a half-updated set.
     * @param {import('../core/types.js').PaasmonRecord[]} records
     * @param {{ complete: boolean }} [meta]
     */
    write(records, meta) {
      if (meta?.complete && records.every((r) => r.kind === 'instance_sample')) {
        for (const { gauge } of gauges) gauge.reset();
        up.reset();
      }
      for (const record of records) {
        if (record.kind === 'instance_sample') showSample(record);
        else if (record.kind === 'router_request') countRouterRequest(record);
        else countLoadgenRequest(record);
      }
    },
    /** The load generator waited for a PostgreSQL write slot. @param {number} run */
    countRecordWait(run) {
      loadgen.recordWaits.inc({ run: String(run) });
    },
    /** @param {number} seconds */
    setIngestLag(seconds) {
      router.lag.set(seconds);
    },
    /** @param {string} outcome @param {string} reason @param {number} n */
    observeDrain(outcome, reason, n) {
      if (n > 0) drain.messages.inc({ outcome, reason }, n);
    },
    /** @param {number} records */
    setDrainBuffered(records) {
      drain.buffered.set(records);
    },
    /**
     * An increment's skipped records by reason, and its source's recent ratio (pipeline/skipped-window.js).
     * @param {string} source @param {Map<string, number>} skipped @param {number} ratio
     */
    showSkipped(source, skipped, ratio) {
      for (const [reason, n] of skipped) router.skipped.inc({ reason }, n);
      router.skippedRatio.set({ source }, ratio);
    },
    /**
     * Correlation counts per run as PostgreSQL has them; the counter moves by what is new per run
     * since the last call (a count that shrinks, e.g. loadgen_only once matched, moves nothing).
     * @param {Array<{ run_id: number, matched: number, loadgen_only: number, router_only: number }>} runs
     */
    setCorrelationCounts(runs) {
      for (const run of runs) {
        for (const result of /** @type {const} */ (['matched', 'loadgen_only', 'router_only'])) {
          const key = `${run.run_id}:${result}`;
          const delta = run[result] - (correlationSeen.get(key) ?? 0);
          if (delta > 0) {
            correlation.inc({ result }, delta);
            correlationSeen.set(key, run[result]);
          }
        }
      }
    },
    async flush() {},
    async close() {},
  };
}

/** @typedef {ReturnType<typeof createPrometheusSink>} PrometheusSink */
