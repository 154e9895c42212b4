// paasmon — runs (PostgreSQL): every run in the time range, and two or more runs compared side by
// side. Reads the documented tables and views only (test_runs, run_summary, instance_samples,
// loadgen_requests; run_prunes and run_figures for runs whose raw rows were pruned), so the
// numbers are those of `paasmon correlate`, the SQL reports and `paasmon report`.
import { QueryVariableBuilder, RowBuilder, VariableRefresh } from '@grafana/grafana-foundation-sdk/dashboard';
import * as barchart from '@grafana/grafana-foundation-sdk/barchart';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import * as xychart from '@grafana/grafana-foundation-sdk/xychart';
import {
  POSTGRESQL,
  UIDS,
  datasourceRef,
  datasourceVariable,
  finish,
  legend,
  tooltip,
  paasmonDashboard,
  runAnnotations,
  sql,
  sqlTable,
} from './common.js';

/** Run ids picked in the `run` variable (Grafana quotes each: '3','7'). */
const SELECTED = 'IN ($run)';

/** A stored figure of a pruned run, from its run_comparison row in run_figures. @param {string} key */
const stored = (key) => `(r ->> '${key}')::double precision`;

/**
 * run_summary of the runs that still have their raw rows, and for a run whose raw rows were pruned
 * (run_prunes) its figures stored before pruning (run_figures_stored: over the report's default
 * steady window), with the day it was pruned in raw_rows_pruned_on.
 */
const SUMMARIES = `(
  SELECT s.*, NULL::text AS raw_rows_pruned_on FROM run_summary s
  WHERE NOT EXISTS (SELECT 1 FROM run_prunes p WHERE p.run_id = s.run_id)
  UNION ALL
  SELECT p.run_id, t.label, (r ->> 'requests')::bigint, (r ->> 'errors')::bigint, ${stored('error_ratio')},
         ${stored('window_s')}, ${stored('throughput_rps')}, ${stored('e2e_mean_ms')}, ${stored('e2e_p50_ms')},
         ${stored('e2e_p95_ms')}, ${stored('e2e_p99_ms')}, ${stored('e2e_max_ms')}, ${stored('e2e_stddev_ms')},
         ${stored('router_mean_ms')}, ${stored('router_p50_ms')}, ${stored('router_p95_ms')}, ${stored('router_p99_ms')},
         ${stored('matched_ratio')}, ${stored('cpu_percent_avg')}, ${stored('cpu_percent_peak')},
         ${stored('cpu_capacity_percent')}, ${stored('cpu_utilization_percent')} / 100, ${stored('mem_bytes_avg')}::numeric,
         ${stored('throughput_rps')} / nullif(${stored('cpu_percent_avg')}, 0), ${stored('gorouter_mean_ms')},
         (p.pruned_at AT TIME ZONE 'UTC')::date::text
  FROM run_prunes p JOIN test_runs t ON t.id = p.run_id
  CROSS JOIN LATERAL json_array_elements(run_figures_stored(p.run_id, 0.1) -> 'runs') r
) s`;

// Each run's summary is asked for by its id, in a LATERAL subquery that OFFSET 0 keeps whole: flattened into a
// join on the id, it had PostgreSQL compute every stored run's figures, in the time range or not.
export const RUNS_SQL = `
SELECT t.id AS run_id, t.label, t.app_name, t.meta ->> 'tool' AS tool, t.implementation, t.instances, t.parallel,
       t.cores_per_instance,
       t.started_at, t.ended_at, summary.requests, summary.error_ratio, summary.throughput_rps,
       summary.e2e_p50_ms, summary.e2e_p95_ms, summary.e2e_p99_ms, summary.router_p95_ms, summary.cpu_percent_avg,
       summary.cpu_utilization, summary.throughput_per_cpu_percent, summary.raw_rows_pruned_on,
       ((extract(epoch FROM t.started_at) * 1000)::bigint)::text AS from_ms,
       ((extract(epoch FROM coalesce(t.ended_at, now())) * 1000)::bigint)::text AS to_ms
FROM test_runs t CROSS JOIN LATERAL (SELECT * FROM ${SUMMARIES} WHERE s.run_id = t.id OFFSET 0) summary
WHERE $__timeFilter(t.started_at)
ORDER BY t.started_at DESC`;

export const COMPARE_SQL = `
SELECT label, requests, errors, error_ratio, duration_s, throughput_rps, e2e_mean_ms, e2e_p50_ms, e2e_p95_ms, e2e_p99_ms, e2e_max_ms,
       router_p50_ms, router_p95_ms, router_p99_ms, matched_ratio, cpu_percent_avg, cpu_percent_peak, cpu_capacity_percent,
       cpu_utilization, mem_bytes_avg, throughput_per_cpu_percent, raw_rows_pruned_on
FROM ${SUMMARIES} WHERE run_id ${SELECTED} ORDER BY run_id`;

export const THROUGHPUT_PER_CPU_SQL = `
SELECT label, throughput_rps, throughput_per_cpu_percent FROM ${SUMMARIES} WHERE run_id ${SELECTED} ORDER BY run_id`;

export const THROUGHPUT_VS_CPU_SQL = `
SELECT cpu_percent_avg, throughput_rps FROM ${SUMMARIES}
WHERE run_id ${SELECTED} AND cpu_percent_avg IS NOT NULL AND throughput_rps IS NOT NULL ORDER BY cpu_percent_avg`;

export const LATENCY_VS_THROUGHPUT_SQL = `
SELECT throughput_rps, e2e_p50_ms, e2e_p95_ms, e2e_p99_ms FROM ${SUMMARIES}
WHERE run_id ${SELECTED} AND throughput_rps IS NOT NULL ORDER BY throughput_rps`;

/**
 * Per instance and poll inside each selected run, against seconds since that run started, so runs overlay.
 * @param {string} column @param {string} alias
 */
const sinceStart = (column, alias) => `
SELECT extract(epoch FROM s.ts - t.started_at)::double precision AS seconds_since_start,
       s.${column} AS ${alias},
       t.label || ' #' || s.instance_index AS series
FROM test_runs t
JOIN instance_samples s ON s.app_name = t.app_name AND s.ts >= t.started_at AND s.ts <= coalesce(t.ended_at, now())
WHERE t.id ${SELECTED} AND s.${column} IS NOT NULL
ORDER BY series, seconds_since_start`;

export const CPU_SINCE_START_SQL = sinceStart('cpu_percent', 'cpu_percent');
export const MEMORY_SINCE_START_SQL = sinceStart('mem_bytes', 'mem_bytes');

export const THROUGHPUT_OVER_TIME_SQL = `
SELECT $__timeGroupAlias(started_at, $__interval), 'run ' || run_id AS metric,
       count(*) FILTER (WHERE status > 0 AND status < 500) / ($__interval_ms / 1000.0) AS requests_per_second
FROM loadgen_requests
WHERE run_id ${SELECTED} AND $__timeFilter(started_at)
GROUP BY 1, 2 ORDER BY 1`;

const ds = () => datasourceRef(POSTGRESQL);

/** Splits a long frame into one frame per `series`, so an XY chart draws one line each. */
const partitionBySeries = { id: 'partitionByValues', options: { fields: ['series'], keepFields: false } };

// from_ms/to_ms are text: a data link takes a field's displayed value, and a number would be formatted.
/** Table cells of the run id and label open the router detail of that run over its own time range. */
const runLink = {
  title: 'Router detail of run ${__data.fields.run_id}',
  url: `/d/${UIDS.router}?var-run=\${__data.fields.run_id}&var-app=\${__data.fields.app_name}&from=\${__data.fields.from_ms}&to=\${__data.fields.to_ms}`,
};

/**
 * Points and lines across runs sorted by x; plain lines for series over time since run start.
 * @param {string} title @param {string} description @param {xychart.XYShowMode} [show]
 */
const xy = (title, description, show = xychart.XYShowMode.PointsAndLines) =>
  new xychart.PanelBuilder()
    .show(show)
    .legend(legend())
    .tooltip(tooltip())
    .title(title)
    .description(description)
    .datasource(ds())
    .height(9)
    .span(12);

export function runsDashboard() {
  const builder = paasmonDashboard(
    'paasmon — runs',
    UIDS.runs,
    'now-7d',
    'Load-test runs from PostgreSQL: every run in the time range, and the runs picked in "run" compared side by side.',
  )
    .withVariable(datasourceVariable(POSTGRESQL, 'PostgreSQL'))
    .withVariable(runsToCompareVariable())
    .annotation(runAnnotations());
  withAllRunsRow(builder);
  withSelectedRunsRow(builder);
  withScalingCharts(builder);
  return finish(builder.build());
}

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DashboardBuilder} DashboardBuilder */

/** Any stored runs, picked by hand (none by default): the runs the second row compares. */
const runsToCompareVariable = () =>
  new QueryVariableBuilder('run')
    .label('runs to compare')
    .datasource(ds())
    .query("SELECT id AS __value, id || ' ' || label AS __text FROM test_runs ORDER BY id DESC")
    .refresh(VariableRefresh.OnDashboardLoad)
    .multi(true)
    .includeAll(false);

/** One row per run in the time range, each linking to its router detail. @param {DashboardBuilder} builder */
function withAllRunsRow(builder) {
  return builder.withRow(new RowBuilder('All runs in the time range')).withPanel(
    sqlTable(
      'Runs',
      'One row per run (run_summary; a run whose raw rows were pruned: its figures stored before pruning, over ' +
        'its steady window, and the day in raw_rows_pruned_on). Click a run to open its router detail.',
      RUNS_SQL,
      10,
    )
      .overrideByName('run_id', [{ id: 'links', value: [runLink] }])
      .overrideByName('label', [{ id: 'links', value: [runLink] }])
      .overrideByName('from_ms', [{ id: 'custom.hidden', value: true }])
      .overrideByName('to_ms', [{ id: 'custom.hidden', value: true }])
      .overrideByRegexp('.*_ratio|cpu_utilization', [{ id: 'unit', value: 'percentunit' }])
      .overrideByRegexp('(e2e|router)_.*_ms', [{ id: 'unit', value: 'ms' }]),
  );
}

/** The selected runs' figures side by side and their throughput. @param {DashboardBuilder} builder */
function withSelectedRunsRow(builder) {
  return builder
    .withRow(new RowBuilder('Selected runs side by side'))
    .withPanel(
      sqlTable(
        'Selected runs',
        'Every run_summary column of the runs picked in "run" (a pruned run: as stored, see raw_rows_pruned_on).',
        COMPARE_SQL,
        8,
      )
        .overrideByRegexp('.*_ratio|cpu_utilization', [{ id: 'unit', value: 'percentunit' }])
        .overrideByRegexp('.*_ms', [{ id: 'unit', value: 'ms' }]),
    )
    .withPanel(
      new barchart.PanelBuilder()
        .legend(legend())
        .title('Throughput and throughput per CPU %')
        .description('Requests without error per second, and per percent of one core used (thesis table 7.2).')
        .datasource(ds())
        .height(9)
        .span(12)
        .xField('label')
        .withTarget(sql(THROUGHPUT_PER_CPU_SQL))
        .unit('reqps'),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .legend(legend())
        .tooltip(tooltip())
        .title('Load-generator throughput over time')
        .description('Requests without error per second, per selected run.')
        .datasource(ds())
        .height(9)
        .span(12)
        .unit('reqps')
        .min(0)
        .withTarget(sql(THROUGHPUT_OVER_TIME_SQL, { format: 'time_series' })),
    );
}

/**
 * The selected runs against each other (throughput, CPU, latency) and their instances over time, in the same row.
 * @param {DashboardBuilder} builder
 */
function withScalingCharts(builder) {
  return builder
    .withPanel(
      xy(
        'Throughput vs CPU',
        'Per selected run: average CPU of the app (sum over instances, % of one core) against throughput. Where the line flattens, scaling stops.',
      )
        .withTarget(sql(THROUGHPUT_VS_CPU_SQL))
        .unit('reqps'),
    )
    .withPanel(
      xy('Response time vs throughput', 'Per selected run: end-to-end p50/p95/p99 against throughput.')
        .withTarget(sql(LATENCY_VS_THROUGHPUT_SQL))
        .unit('ms'),
    )
    .withPanel(
      xy(
        'CPU per instance since run start',
        'Each instance of each selected run, against seconds since its run started, so runs overlay. % of one core.',
        xychart.XYShowMode.Lines,
      )
        .withTarget(sql(CPU_SINCE_START_SQL))
        .withTransformation(partitionBySeries)
        .unit('percent'),
    )
    .withPanel(
      xy(
        'Memory per instance since run start',
        'Each instance of each selected run, against seconds since its run started.',
        xychart.XYShowMode.Lines,
      )
        .withTarget(sql(MEMORY_SINCE_START_SQL))
        .withTransformation(partitionBySeries)
        .unit('bytes'),
    );
}
