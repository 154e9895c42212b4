// paasmon — router detail (PostgreSQL): every gorouter record of the time range, per request and
// per app instance, and where the time of a correlated request went.
import { QueryVariableBuilder, RowBuilder, VariableRefresh } from '@grafana/grafana-foundation-sdk/dashboard';
import { HeatmapCellLayout, StackingConfigBuilder, StackingMode } from '@grafana/grafana-foundation-sdk/common';
import * as heatmap from '@grafana/grafana-foundation-sdk/heatmap';
import {
  POSTGRESQL,
  UIDS,
  datasourceRef,
  datasourceVariable,
  finish,
  timeSeries,
  paasmonDashboard,
  runAnnotations,
  sql,
  sqlTable,
} from './common.js';

const IN_RANGE = '$__timeFilter(received_at) AND app_name IN ($app)';

/**
 * Buckets by powers of two of milliseconds (0.125 ms up), named by their upper bound, so the heatmap
 * reads them as ready-made rows instead of computing buckets from every record in the browser.
 */
export const HEATMAP_SQL = `
SELECT $__timeGroupAlias(received_at, $__interval),
       power(2, ceil(log(2, greatest(response_time_ms, 0.125)::numeric)))::double precision::text AS metric,
       count(*) AS requests
FROM router_requests
WHERE ${IN_RANGE} AND response_time_ms IS NOT NULL
GROUP BY 1, 2 ORDER BY 1`;

/** Outside the router = e2e - router; gorouter = gorouter_time; app = router - gorouter. Means per interval. */
export const BREAKDOWN_SQL = `
SELECT $__timeGroupAlias(started_at, $__interval),
       avg(overhead_ms) AS "outside router",
       avg(gorouter_ms) AS gorouter,
       avg(router_ms - gorouter_ms) AS app
FROM correlated_requests
WHERE run_id IN ($run) AND $__timeFilter(started_at)
GROUP BY 1 ORDER BY 1`;

export const SLOWEST_SQL = `
SELECT received_at, app_name, app_index, instance_id, status, response_time_ms, gorouter_time_ms,
       correlation_id, vcap_request_id, method, path, router_error
FROM router_requests
WHERE ${IN_RANGE} AND response_time_ms IS NOT NULL
ORDER BY response_time_ms DESC LIMIT 100`;

export const PER_INSTANCE_SQL = `
SELECT app_name, app_index, count(*) AS requests,
       count(*) FILTER (WHERE status >= 500) AS errors_5xx,
       percentile_cont(0.50) WITHIN GROUP (ORDER BY response_time_ms) AS p50_ms,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY response_time_ms) AS p95_ms,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY response_time_ms) AS p99_ms,
       max(response_time_ms) AS max_ms
FROM router_requests
WHERE ${IN_RANGE}
GROUP BY app_name, app_index ORDER BY app_name, app_index`;

export const PER_INSTANCE_P95_SQL = `
SELECT $__timeGroupAlias(received_at, $__interval), app_name || ' #' || coalesce(app_index::text, '?') AS metric,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY response_time_ms) AS p95_ms
FROM router_requests
WHERE ${IN_RANGE} AND response_time_ms IS NOT NULL
GROUP BY 1, 2 ORDER BY 1`;

export const PER_INSTANCE_RATE_SQL = `
SELECT $__timeGroupAlias(received_at, $__interval), app_name || ' #' || coalesce(app_index::text, '?') AS metric,
       count(*) / ($__interval_ms / 1000.0) AS requests_per_second
FROM router_requests
WHERE ${IN_RANGE}
GROUP BY 1, 2 ORDER BY 1`;

const ds = () => datasourceRef(POSTGRESQL);

/** @param {string} title @param {string} description @param {string} unit */
const series = (title, description, unit) => timeSeries(POSTGRESQL, title, description, unit, 9).min(0);

export function routerDetailDashboard() {
  const builder = paasmonDashboard(
    'paasmon — router detail',
    UIDS.router,
    'now-1h',
    'Gorouter access-log records from PostgreSQL: latency distribution, slowest requests with their correlation ids, per app instance.',
  )
    .annotation(runAnnotations())
    .withVariable(datasourceVariable(POSTGRESQL, 'PostgreSQL'))
    .withVariable(appVariable())
    .withVariable(runVariable());
  withLatencyRow(builder);
  withRequestsRow(builder);
  withPerInstanceRow(builder);
  return finish(builder.build());
}

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DashboardBuilder} DashboardBuilder */

/** The apps that have router records in the time range, any of them picked. */
const appVariable = () =>
  new QueryVariableBuilder('app')
    .label('app')
    .datasource(ds())
    .query(
      'SELECT DISTINCT app_name FROM router_requests WHERE $__timeFilter(received_at) AND app_name IS NOT NULL ORDER BY 1',
    )
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .multi(true)
    .includeAll(true);

/** The runs that overlap the time range, for the breakdown of their correlated requests. */
const runVariable = () =>
  new QueryVariableBuilder('run')
    .label('run')
    .datasource(ds())
    .query(
      "SELECT id AS __value, id || ' ' || label AS __text FROM test_runs WHERE started_at <= $__timeTo() AND coalesce(ended_at, now()) >= $__timeFrom() ORDER BY id DESC",
    )
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .multi(true)
    .includeAll(true);

/** The latency heatmap and where the time of correlated requests went. @param {DashboardBuilder} builder */
function withLatencyRow(builder) {
  return builder
    .withRow(new RowBuilder('Latency'))
    .withPanel(
      new heatmap.PanelBuilder()
        .title('Router latency heatmap')
        .description('Requests per interval and latency bucket (powers of two of milliseconds, by upper bound).')
        .datasource(ds())
        .height(9)
        .span(12)
        .calculate(false)
        .unit('ms')
        .withTarget(sql(HEATMAP_SQL, { format: 'time_series' }))
        .rowsFrame(new heatmap.RowsHeatmapOptionsBuilder().layout(HeatmapCellLayout.Le).value('requests')),
    )
    .withPanel(
      series(
        'Latency breakdown of correlated requests',
        'Mean per interval: outside the router (network, client: e2e minus router), gorouter itself, and the app (router minus gorouter).',
        'ms',
      )
        .stacking(new StackingConfigBuilder().mode(StackingMode.Normal))
        .fillOpacity(40)
        .withTarget(sql(BREAKDOWN_SQL, { format: 'time_series' })),
    );
}

/** The slowest requests with their correlation ids. @param {DashboardBuilder} builder */
function withRequestsRow(builder) {
  return builder
    .withRow(new RowBuilder('Requests'))
    .withPanel(
      sqlTable(
        'Slowest requests',
        "The 100 slowest router records in range, with correlation id (the load generator's id) and the instance that answered.",
        SLOWEST_SQL,
        10,
      ).overrideByRegexp('.*_ms', [{ id: 'unit', value: 'ms' }]),
    );
}

/** Requests, errors and percentiles per app instance. @param {DashboardBuilder} builder */
function withPerInstanceRow(builder) {
  return builder
    .withRow(new RowBuilder('Per app instance'))
    .withPanel(
      sqlTable(
        'Per app instance',
        'Requests, 5xx and response-time percentiles per app instance (gorouter app_index) in range.',
        PER_INSTANCE_SQL,
        8,
      ).overrideByRegexp('.*_ms', [{ id: 'unit', value: 'ms' }]),
    )
    .withPanel(
      series('Requests per second per instance', 'Router records per second, per app instance.', 'reqps').withTarget(
        sql(PER_INSTANCE_RATE_SQL, { format: 'time_series' }),
      ),
    )
    .withPanel(
      series('p95 per instance', 'Router response time p95 per interval, per app instance.', 'ms').withTarget(
        sql(PER_INSTANCE_P95_SQL, { format: 'time_series' }),
      ),
    );
}
