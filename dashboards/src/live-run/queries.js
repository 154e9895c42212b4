// The live-run dashboard's building blocks: Prometheus queries (selectors, quantiles, ratios), panel and
// variable shapes.
import { QueryVariableBuilder, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import { PROMETHEUS, datasourceRef, timeSeries } from '../common.js';

export const INSTANCE = 'app=~"$app",process_type=~"$process_type",instance_index=~"$instance_index"';
export const INSTANCE_LEGEND = '{{app}}/{{process_type}} #{{instance_index}}';
export const RATE = '$__rate_interval';

/** @param {string} expr @param {string} legend @param {string} [refId] */
export const prom = (expr, legend, refId = 'A') =>
  new DataqueryBuilder().datasource(datasourceRef(PROMETHEUS)).expr(expr).legendFormat(legend).refId(refId);

/** @param {string} title @param {string} description @param {string} unit */
export const series = (title, description, unit) => timeSeries(PROMETHEUS, title, description, unit, 8);

/** @param {string} title @param {string} description @param {string} unit */
export const single = (title, description, unit) =>
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
export const labelVariable = (name, query) =>
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
export const ratio = (metric, all, part, by) =>
  `(sum by (${by}) (rate(${metric}{${all},${part}}[${RATE}])) or sum by (${by}) (rate(${metric}{${all}}[${RATE}])) * 0)` +
  ` / sum by (${by}) (rate(${metric}{${all}}[${RATE}]))`;
