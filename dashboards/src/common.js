// What the three dashboards share: datasource variables, the SQL query shape of Grafana's
// PostgreSQL plugin (the foundation SDK has no builder for it), ids and the schema version.
import {
  AnnotationQueryBuilder,
  DashboardBuilder,
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  VariableHide,
} from '@grafana/grafana-foundation-sdk/dashboard';
import {
  LegendDisplayMode,
  LegendPlacement,
  SortOrder,
  TooltipDisplayMode,
  VizLegendOptionsBuilder,
  VizTooltipOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

/**
 * Grafana 10.0 writes schemaVersion 38; Grafana 10, 11 and 12 all load it (later versions migrate it
 * up on load, nothing migrates down), so the generated files stay loadable by all three.
 */
export const SCHEMA_VERSION = 38;

/** @typedef {import('@grafana/grafana-foundation-sdk/cog').Dataquery} Dataquery */

/** Plugin ids (the PostgreSQL plugin carries this id since Grafana 10.2.3; `postgres` is its alias). */
export const PROMETHEUS = 'prometheus';
export const POSTGRESQL = 'grafana-postgresql-datasource';

/** Uids, stable: links between the dashboards and bookmarks rely on them. */
export const UIDS = /** @type {const} */ ({
  live: 'paasmon-live-run',
  runs: 'paasmon-runs',
  router: 'paasmon-router-detail',
});

/**
 * What the three share: a stable uid, the paasmon tag and a menu of the other paasmon dashboards
 * keeping the time range; read-only (the provider does not let edits overwrite the files); UTC.
 * @param {string} title @param {string} uid @param {string} from @param {string} description
 */
export function paasmonDashboard(title, uid, from, description) {
  const others = new DashboardLinkBuilder('paasmon dashboards').type(DashboardLinkType.Dashboards).tags(['paasmon']);
  return new DashboardBuilder(title)
    .uid(uid)
    .tags(['paasmon'])
    .readonly()
    .time({ from, to: 'now' })
    .timezone('utc')
    .description(description)
    .link(others.asDropdown(true).keepTime(true).includeVars(false));
}

/**
 * A full-width table of one PostgreSQL query.
 * @param {string} title @param {string} description @param {string} rawSql @param {number} height
 */
export function sqlTable(title, description, rawSql, height) {
  const ds = datasourceRef(POSTGRESQL);
  return new table.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(ds)
    .height(height)
    .span(24)
    .withTarget(sql(rawSql));
}

/** A legend under the chart: which instance or run a line is matters more than the space. */
export const legend = () =>
  new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom);

/** Hovering shows every series at that point, highest first, so instances and runs compare. */
export const tooltip = () => new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending);

/**
 * A half-width time series with a legend and a multi-series tooltip.
 * @param {string} type datasource plugin id @param {string} title @param {string} description @param {string} unit
 * @param {number} height
 */
export function timeSeries(type, title, description, unit, height) {
  return new timeseries.PanelBuilder()
    .legend(legend())
    .tooltip(tooltip())
    .title(title)
    .description(description)
    .unit(unit)
    .datasource(datasourceRef(type))
    .height(height)
    .span(12);
}

/** Every panel and query reads its datasource from this variable. */
export const DATASOURCE_VARIABLE = 'datasource';

/** @param {string} type @param {string} label */
export function datasourceVariable(type, label) {
  return new DatasourceVariableBuilder(DATASOURCE_VARIABLE).label(label).type(type).hide(VariableHide.DontHide);
}

/** @param {string} type */
export const datasourceRef = (type) => ({ type, uid: `\${${DATASOURCE_VARIABLE}}` });

/**
 * A raw-SQL query of the PostgreSQL datasource, as its query editor saves one in code mode.
 * @param {string} rawSql @param {{ format?: 'table' | 'time_series', refId?: string }} [options]
 * @returns {import('@grafana/grafana-foundation-sdk/cog').Builder<Dataquery>}
 */
export function sql(rawSql, { format = 'table', refId = 'A' } = {}) {
  const query = {
    refId,
    datasource: datasourceRef(POSTGRESQL),
    editorMode: 'code',
    format,
    rawQuery: true,
    rawSql: rawSql.trim(),
    _implementsDataqueryVariant() {},
  };
  return { build: () => query };
}

/** Each run from test_runs as a region, start to end (a run still going ends now). */
export const RUN_ANNOTATIONS_SQL = `
SELECT started_at AS time, coalesce(ended_at, now()) AS "timeEnd", label || ' (run ' || id || ')' AS text, 'paasmon-run' AS tags
FROM test_runs
WHERE started_at <= $__timeTo() AND coalesce(ended_at, now()) >= $__timeFrom()
ORDER BY started_at`;

export function runAnnotations() {
  return new AnnotationQueryBuilder()
    .name('Runs')
    .datasource(datasourceRef(POSTGRESQL))
    .enable(true)
    .iconColor('rgba(0, 211, 255, 1)')
    .target(/** @type {any} */ (sql(RUN_ANNOTATIONS_SQL)));
}

/**
 * Finishes a built dashboard: schema version, panel ids in reading order, and JSON without
 * functions or undefined members (the SDK's query variants carry a marker method).
 * @param {import('@grafana/grafana-foundation-sdk/dashboard').Dashboard} dashboard
 */
export function finish(dashboard) {
  const json = JSON.parse(JSON.stringify(dashboard));
  json.schemaVersion = SCHEMA_VERSION;
  let id = 1;
  for (const panel of json.panels ?? []) {
    panel.id = id++;
    for (const inner of panel.panels ?? []) inner.id = id++;
  }
  return json;
}
