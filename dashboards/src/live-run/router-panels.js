// The live-run dashboard's Router and load generator row: rates, latency quantiles, errors, correlation.
import { RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { RATE, prom, quantile, ratio, series, single } from './queries.js';

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DashboardBuilder} DashboardBuilder */

/**
 * The row, its router panels and its load-generator panels.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
export function withRouterRow(builder) {
  return withLoadgenPanels(withRouterPanels(builder.withRow(new RowBuilder('Router and load generator'))));
}

/**
 * Router requests per second and latency quantiles.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
function withRouterPanels(builder) {
  return builder
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
    );
}

/**
 * The load generator beside the router: latency, errors, correlation, outcomes.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
function withLoadgenPanels(builder) {
  return builder
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
}
