// Sink `prometheus`: the contract's gauges on paasmon's own prom-client registry, plus the
// collector's own metrics. Nothing here does I/O; /metrics renders the registry.
import client from 'prom-client';
import { statusClass } from '../core/ids.js';
import { createRouterRequestTally } from '../core/router-request-tally.js';
import {
  defineCorrelationCounter,
  defineDrainMetrics,
  defineInstanceMetrics,
  defineLoadgenMetrics,
  defineRouterMetrics,
  defineSelfMetrics,
} from './prometheus-metrics.js';
import { createRunSeriesExpiry } from './prometheus-run-series.js';

/** @typedef {ReturnType<typeof defineInstanceMetrics>} InstanceMetrics */
/** @typedef {ReturnType<typeof defineRouterMetrics>} RouterMetrics */
/** @typedef {ReturnType<typeof defineLoadgenMetrics>} LoadgenMetrics */
/** @typedef {import('../core/types.js').InstanceSample} InstanceSample */

/**
 * @param {{ collectDefaultMetrics?: boolean, runSeriesTtlMs?: number, now?: () => number }} [options]
 *   runSeriesTtlMs: how long a run's series stay after `runEnded`; now: the clock of that TTL */
export function createPrometheusSink(options = {}) {
  const registry = new client.Registry();
  if (options.collectDefaultMetrics ?? true)
    client.collectDefaultMetrics({ register: registry, prefix: 'paasmon_process_' });

  const instances = defineInstanceMetrics(registry);
  const self = defineSelfMetrics(registry);
  const router = defineRouterMetrics(registry);
  const loadgen = defineLoadgenMetrics(registry);
  const drain = defineDrainMetrics(registry);
  const correlationCounts = createCorrelationTally(defineCorrelationCounter(registry));
  const runSeries = createRunSeriesExpiry(Object.values(loadgen), options);

  return {
    name: 'prometheus',
    registry,
    self,
    postgresMetrics: postgresMetricsOf(self),
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
      if (meta?.complete && records.every((r) => r.kind === 'instance_sample')) forgetInstances(instances);
      // Made on the first router request only: the load generator writes its requests one at a time.
      /** @type {ReturnType<typeof createRouterRequestTally> | undefined} */
      let routerRequests;
      for (const record of records) {
        if (record.kind === 'instance_sample') showSample(instances, record);
        else if (record.kind === 'router_request') (routerRequests ??= createRouterRequestTally()).add(record);
        else countLoadgenRequest(loadgen, record);
      }
      if (routerRequests) showRouterRequests(router, routerRequests);
    },
    /**
     * Router requests newly stored, as a tally (core/router-request-tally.js): shown as `write` shows them.
     * @param {import('../core/types.js').RouterRequestSets} tally
     */
    showRouterRequests(tally) {
      showRouterRequests(router, tally);
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
    setCorrelationCounts: correlationCounts,
    /** This process's load for a run ended: the run's series leave /metrics after the TTL. */
    runEnded: runSeries.ended,
    /** Removes now the series of the runs whose TTL passed (a timer does it too); how many runs. */
    expireRunSeries: runSeries.expire,
    async flush() {},
    close: async () => runSeries.close(),
  };
}

/**
 * What the PostgreSQL code counts, shown in the self metrics: its creator hands it to a page writer or a sink.
 * @param {ReturnType<typeof defineSelfMetrics>} self
 * @returns {import('./postgres/sink/page-writer.js').PostgresMetrics}
 */
function postgresMetricsOf(self) {
  return { countCleaned: (kind, records) => self.dbCleaned.inc({ kind }, records) };
}

/** @param {InstanceSample} s */
const labelsOf = (s) => ({
  app: s.appName,
  app_guid: s.appGuid,
  process_type: s.processType,
  instance_index: String(s.instanceIndex),
});

/** Drops every instance series, before a complete poll shows the instances that are left. @param {InstanceMetrics} m */
function forgetInstances(m) {
  for (const { gauge } of m.gauges) gauge.reset();
  m.up.reset();
}

/**
 * A sample's numbers as gauges; a number the platform did not give has no series (never 0).
 * @param {InstanceMetrics} m @param {InstanceSample} sample
 */
function showSample(m, sample) {
  const labels = labelsOf(sample);
  for (const { field, gauge } of m.gauges) {
    const value = sample[field];
    if (value === null) gauge.remove(labels);
    else gauge.set(labels, value);
  }
  m.up.set(labels, sample.state === 'RUNNING' ? 1 : 0);
}

/**
 * Each label set's requests in one increment, its response times (ms) in one histogram update.
 * @param {RouterMetrics} router @param {import('../core/types.js').RouterRequestSets} tally
 */
function showRouterRequests(router, tally) {
  for (const { labels, count, responseTimesMs } of tally.sets()) {
    router.requests.inc(labels, count);
    router.responseTime.observeAll(labels, responseTimesMs, 1000);
  }
}

/** @param {LoadgenMetrics} loadgen @param {import('../core/types.js').LoadgenRequest} request */
function countLoadgenRequest(loadgen, request) {
  const run = String(request.runId);
  loadgen.duration.observe({ run, status_class: statusClass(request.status) }, request.durationMs / 1000);
  const outcome = request.error ?? (request.status >= 500 ? 'http_5xx' : request.status >= 400 ? 'http_4xx' : 'ok');
  loadgen.requests.inc({ run, outcome });
}

/**
 * Turns the correlation counts PostgreSQL holds into counter increments.
 * @param {client.Counter<'result'>} counter
 */
function createCorrelationTally(counter) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  /**
   * Correlation counts per run as PostgreSQL has them; the counter moves by what is new per run
   * since the last call (a count that shrinks, e.g. loadgen_only once matched, moves nothing).
   * @param {Array<{ run_id: number, matched: number, loadgen_only: number, router_only: number }>} runs
   */
  return function setCorrelationCounts(runs) {
    for (const run of runs) {
      for (const result of /** @type {const} */ (['matched', 'loadgen_only', 'router_only'])) {
        const key = `${run.run_id}:${result}`;
        const delta = run[result] - (seen.get(key) ?? 0);
        if (delta > 0) {
          counter.inc({ result }, delta);
          seen.set(key, run[result]);
        }
      }
    }
  };
}

/** @typedef {ReturnType<typeof createPrometheusSink>} PrometheusSink */
