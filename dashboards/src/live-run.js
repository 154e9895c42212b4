// paasmon — live run (Prometheus): instances, router and load generator, collector health.
// Every expression reads metrics that exporters/prometheus.js exposes; quantiles come from
// histogram_quantile over the rate of summed buckets, never from averaged quantiles.
import {
  DashboardCursorSync,
  MappingType,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import { PROMETHEUS, UIDS, datasourceRef, datasourceVariable, finish, paasmonDashboard, timeSeries } from './common.js';

const INSTANCE = 'app=~"$app",process_type=~"$process_type",instance_index=~"$instance_index"';
const INSTANCE_LEGEND = '{{app}}/{{process_type}} #{{instance_index}}';
const RATE = '$__rate_interval';

/** @param {string} expr @param {string} legend @param {string} [refId] */
const prom = (expr, legend, refId = 'A') =>
  new DataqueryBuilder().datasource(datasourceRef(PROMETHEUS)).expr(expr).legendFormat(legend).refId(refId);

/** @param {string} title @param {string} description @param {string} unit */
const series = (title, description, unit) => timeSeries(PROMETHEUS, title, description, unit, 8);

/** @param {string} title @param {string} description @param {string} unit */
const single = (title, description, unit) =>
  new stat.PanelBuilder()
    .title(title)
    .description(description)
    .unit(unit)
    .datasource(datasourceRef(PROMETHEUS))
    .height(5)
    .span(6);

/**
 * A label_values variable, multi-select with All (matching any value, including ones not listed yet).
 * @param {string} name @param {string} query
 */
const labelVariable = (name, query) =>
  new QueryVariableBuilder(name)
    .label(name.replace('_', ' '))
    .datasource(datasourceRef(PROMETHEUS))
    .query(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.NaturalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*');

/**
 * Quantile from the rate of buckets summed by `by` (plus le).
 * @param {string} metric @param {number} q @param {string} selector @param {string} by
 */
export const quantile = (metric, q, selector, by) =>
  `histogram_quantile(${q}, sum by (le${by ? `, ${by}` : ''}) (rate(${metric}_bucket{${selector}}[${RATE}])))`;

/**
 * Ratio of a part of a counter to all of it; 0 (not "no data") while the part has no series yet.
 * @param {string} metric @param {string} all @param {string} part @param {string} by
 */
const ratio = (metric, all, part, by) =>
  `(sum by (${by}) (rate(${metric}{${all},${part}}[${RATE}])) or sum by (${by}) (rate(${metric}{${all}}[${RATE}])) * 0)` +
  ` / sum by (${by}) (rate(${metric}{${all}}[${RATE}]))`;

export function liveRunDashboard() {
  const builder = paasmonDashboard(
    'paasmon — live run',
    UIDS.live,
    'now-30m',
    'A load test as it runs: Cloud Foundry instances, gorouter and load-generator latency, and the paasmon collector itself.',
  )
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh('10s')
    .withVariable(datasourceVariable(PROMETHEUS, 'Prometheus'))
    .withVariable(labelVariable('app', 'label_values(paasmon_instance_up, app)'))
    .withVariable(labelVariable('process_type', 'label_values(paasmon_instance_up{app=~"$app"}, process_type)'))
    .withVariable(
      labelVariable(
        'instance_index',
        'label_values(paasmon_instance_up{app=~"$app",process_type=~"$process_type"}, instance_index)',
      ),
    )
    .withVariable(labelVariable('run', 'label_values(paasmon_loadgen_requests_total, run)'));

  builder
    .withRow(new RowBuilder('Instances'))
    .withPanel(
      series(
        'CPU per instance, % of one core',
        'Cloud Controller process stats: the CPU fraction x 100 (250 = two and a half cores).',
        'percent',
      )
        .withTarget(prom(`paasmon_instance_cpu_percent{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      series(
        'CPU per instance, % of entitlement',
        'Percent of the CPU entitlement of the instance; above 100 it runs on spare capacity that can be taken away.',
        'percent',
      )
        .withTarget(prom(`paasmon_instance_cpu_entitlement_percent{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      series('Memory per instance, % of quota', 'Memory used by each instance against its own quota.', 'percent')
        .withTarget(
          prom(
            `100 * paasmon_instance_memory_bytes{${INSTANCE}} / paasmon_instance_memory_quota_bytes{${INSTANCE}}`,
            INSTANCE_LEGEND,
          ),
        )
        .min(0)
        .max(100),
    )
    .withPanel(
      series(
        'Memory per app: used and quota of all instances',
        'Sums over the running instances, so the quota is the per-instance quota times the instance count.',
        'bytes',
      )
        .withTarget(prom(`sum by (app) (paasmon_instance_memory_bytes{${INSTANCE}})`, '{{app}} used'))
        .withTarget(prom(`sum by (app) (paasmon_instance_memory_quota_bytes{${INSTANCE}})`, '{{app}} quota', 'B'))
        .min(0),
    )
    .withPanel(
      series('Disk per instance, % of quota', 'Disk used by each instance against its own quota.', 'percent')
        .withTarget(
          prom(
            `100 * paasmon_instance_disk_bytes{${INSTANCE}} / paasmon_instance_disk_quota_bytes{${INSTANCE}}`,
            INSTANCE_LEGEND,
          ),
        )
        .min(0)
        .max(100),
    )
    .withPanel(
      series('Uptime per instance', 'Seconds since each instance started; a drop to zero is a restart.', 's')
        .withTarget(prom(`paasmon_instance_uptime_seconds{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      new statetimeline.PanelBuilder()
        .title('Instance state')
        .description('RUNNING, or not (STARTING, CRASHED, DOWN), per instance and poll.')
        .datasource(datasourceRef(PROMETHEUS))
        .unit('none')
        .height(8)
        .span(12)
        .mappings([
          {
            type: MappingType.ValueToText,
            options: {
              0: { text: 'not running', color: 'red', index: 0 },
              1: { text: 'RUNNING', color: 'green', index: 1 },
            },
          },
        ])
        .withTarget(prom(`paasmon_instance_up{${INSTANCE}}`, INSTANCE_LEGEND)),
    )
    .withPanel(
      single('Restarts in range', 'Uptime resets per instance in the dashboard time range.', 'none')
        .span(12)
        .height(8)
        .withTarget(
          prom(
            `sum by (app, process_type, instance_index) (resets(paasmon_instance_uptime_seconds{${INSTANCE}}[$__range]))`,
            INSTANCE_LEGEND,
          ),
        ),
    );

  builder
    .withRow(new RowBuilder('Router and load generator'))
    .withPanel(
      series(
        'Router requests per second by status class',
        'Gorouter access-log records ingested, per app and status class.',
        'reqps',
      )
        .withTarget(
          prom(
            `sum by (app, status_class) (rate(paasmon_router_requests_total{app=~"$app"}[${RATE}]))`,
            '{{app}} {{status_class}}',
          ),
        )
        .min(0),
    )
    .withPanel(
      series(
        'Router latency p50 / p95 / p99',
        'Gorouter response time (includes the app), from the histogram of ingested requests.',
        's',
      )
        .withTarget(prom(quantile('paasmon_router_response_time_seconds', 0.5, 'app=~"$app"', 'app'), '{{app}} p50'))
        .withTarget(
          prom(quantile('paasmon_router_response_time_seconds', 0.95, 'app=~"$app"', 'app'), '{{app}} p95', 'B'),
        )
        .withTarget(
          prom(quantile('paasmon_router_response_time_seconds', 0.99, 'app=~"$app"', 'app'), '{{app}} p99', 'C'),
        )
        .min(0),
    )
    .withPanel(
      series(
        'Load generator vs router latency, p95',
        "End-to-end time the load generator measured beside the router's response time; the gap is network and client time.",
        's',
      )
        .withTarget(
          prom(
            quantile('paasmon_loadgen_request_duration_seconds', 0.95, 'run=~"$run"', 'run'),
            'loadgen run {{run}} p95',
          ),
        )
        .withTarget(
          prom(quantile('paasmon_router_response_time_seconds', 0.95, 'app=~"$app"', 'app'), 'router {{app}} p95', 'B'),
        )
        .min(0),
    )
    .withPanel(
      series(
        'Error ratio',
        'Router: 5xx of all records. Load generator: no response or 5xx of all requests.',
        'percentunit',
      )
        .withTarget(
          prom(ratio('paasmon_router_requests_total', 'app=~"$app"', 'status_class="5xx"', 'app'), 'router {{app}}'),
        )
        .withTarget(
          prom(
            ratio('paasmon_loadgen_requests_total', 'run=~"$run"', 'outcome!~"ok|http_4xx"', 'run'),
            'loadgen run {{run}}',
            'B',
          ),
        )
        .min(0),
    )
    .withPanel(
      single(
        'Correlation: matched ratio in range',
        'Load-generator requests found in the router logs, of all load-generator requests correlated in the time range.',
        'percentunit',
      )
        .span(12)
        .height(8)
        .withTarget(
          prom(
            'sum(increase(paasmon_correlation_requests_total{result="matched"}[$__range])) / sum(increase(paasmon_correlation_requests_total{result=~"matched|loadgen_only"}[$__range]))',
            'matched',
          ),
        ),
    )
    .withPanel(
      series(
        'Load-generator requests per second by outcome',
        'ok, http_4xx, http_5xx or the error kind (timeout, refused, reset, ...).',
        'reqps',
      )
        .withTarget(
          prom(
            `sum by (run, outcome) (rate(paasmon_loadgen_requests_total{run=~"$run"}[${RATE}]))`,
            'run {{run}} {{outcome}}',
          ),
        )
        .min(0),
    );

  builder
    .withRow(new RowBuilder('Collector health'))
    .withPanel(
      single(
        'Last successful poll, age',
        'Seconds since each source last succeeded; alerts fire past three poll intervals.',
        's',
      ).withTarget(prom('time() - paasmon_source_last_success_timestamp_seconds', '{{source}}')),
    )
    .withPanel(
      single('Router ingest lag', 'How far the router-log checkpoint is behind now.', 's').withTarget(
        prom('paasmon_router_ingest_lag_seconds', 'lag'),
      ),
    )
    .withPanel(
      single(
        'Records waiting for PostgreSQL',
        'Buffered while the database is unreachable (bounded by DB_BUFFER_RECORDS).',
        'none',
      ).withTarget(prom('paasmon_db_pending_records', 'pending')),
    )
    .withPanel(
      single(
        'Records dropped in range',
        'Dropped because the buffer was full during a database outage: lost data.',
        'none',
      ).withTarget(prom('increase(paasmon_db_dropped_records_total[$__range])', 'dropped')),
    )
    .withPanel(
      series('Poll duration p95', 'Duration of one poll of each source.', 's')
        .withTarget(prom(quantile('paasmon_source_poll_duration_seconds', 0.95, '', 'source'), '{{source}}'))
        .min(0),
    )
    .withPanel(
      series(
        'Source errors and skipped polls per second',
        'Failed polls and requests by reason; polls skipped because the previous one still ran.',
        'ops',
      )
        .noValue('0')
        .withTarget(
          prom(`sum by (source, reason) (rate(paasmon_source_errors_total[${RATE}]))`, '{{source}} error {{reason}}'),
        )
        .withTarget(
          prom(`sum by (source) (rate(paasmon_source_polls_skipped_total[${RATE}]))`, '{{source}} skipped', 'B'),
        )
        .min(0),
    );

  return finish(builder.build());
}
