// What Grafana would do with the dashboards, for tests (Grafana itself cannot run here): list
// every query, and expand variables and SQL macros the way Grafana does before a query reaches
// Prometheus or PostgreSQL. Expansion rules follow grafana/grafana:
// pkg/tsdb/grafana-postgresql-datasource/macros.go (macros), pkg/tsdb/sqleng (interval
// variables), and the SQL datasources' interpolateVariable (multi-value: each quoted, comma-joined).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboards/', import.meta.url));
export const PROMETHEUS_DIR = fileURLToPath(new URL('../../prometheus/', import.meta.url));

/** The committed dashboards, by file name. @returns {Record<string, any>} */
export function loadDashboards() {
  return Object.fromEntries(
    fs
      .readdirSync(DASHBOARD_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [f, JSON.parse(fs.readFileSync(path.join(DASHBOARD_DIR, f), 'utf8'))]),
  );
}

/** Provisioned datasources (uid, type) from dashboards/provisioning/datasources/*.yml. */
export function provisionedDatasources() {
  const dir = path.join(DASHBOARD_DIR, 'provisioning', 'datasources');
  return fs
    .readdirSync(dir)
    .flatMap((f) => /** @type {any} */ (YAML.parse(fs.readFileSync(path.join(dir, f), 'utf8'))).datasources);
}

/** Panels of a dashboard, rows' nested panels included. @param {any} dashboard @returns {any[]} */
export const panelsOf = (dashboard) =>
  (dashboard.panels ?? []).flatMap((/** @type {any} */ p) => [p, ...(p.panels ?? [])]);

/**
 * Every query of a dashboard: panel targets, variable queries and annotation targets.
 * @param {any} dashboard
 * @returns {Array<{ where: string, type: string, text: string }>}
 */
export function queriesOf(dashboard) {
  const out = [];
  for (const panel of panelsOf(dashboard)) {
    for (const t of panel.targets ?? []) {
      const type = t.datasource?.type ?? panel.datasource?.type;
      out.push({
        where: `${dashboard.uid} panel "${panel.title}" ${t.refId}`,
        type,
        text: type === 'prometheus' ? t.expr : t.rawSql,
      });
    }
  }
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type === 'query')
      out.push({
        where: `${dashboard.uid} variable ${v.name}`,
        type: v.datasource.type,
        text: typeof v.query === 'string' ? v.query : v.query.query,
      });
  }
  for (const a of dashboard.annotations?.list ?? []) {
    if (a.target?.rawSql)
      out.push({ where: `${dashboard.uid} annotation "${a.name}"`, type: a.datasource.type, text: a.target.rawSql });
  }
  return out;
}

/** Go's time.RFC3339Nano of a UTC time: fraction without trailing zeros, none when whole. @param {Date} date */
export function rfc3339Nano(date) {
  const iso = date.toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** Grafana's interval strings ('1s', '5m', '1h', '100ms') in seconds. @param {string} text */
export function intervalSeconds(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)$/.exec(text.replace(/'/g, '').trim());
  if (!m) throw new Error(`not a Grafana interval: ${text}`);
  return (
    Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 }[/** @type {'s'} */ (m[2])]
  );
}

/** @typedef {{ values: string[], multi: boolean }} SqlVariable */

/** A SQL string literal as Grafana's SQL datasources quote a variable value. @param {string} value */
const quoteLiteral = (value) => `'${String(value).replace(/'/g, "''")}'`;

/**
 * Expands a PostgreSQL panel query as Grafana does: dashboard variables and $__interval in the
 * frontend (a multi-value or include-All variable as 'a','b'; a single value as it is), then
 * $__interval_ms / $__unixEpochFrom() / $__unixEpochTo() and the macros in the backend.
 * @param {string} sql
 * @param {{ from: Date, to: Date, interval: string, variables: Record<string, SqlVariable> }} context
 */
export function expandSql(sql, { from, to, interval, variables }) {
  let text = sql;
  for (const [name, { values, multi }] of Object.entries(variables)) {
    text = text.replace(
      new RegExp(`\\$\\{${name}\\}|\\$${name}\\b`, 'g'),
      multi ? values.map(quoteLiteral).join(',') : values[0],
    );
  }
  const seconds = intervalSeconds(interval);
  text = text
    .replaceAll('$__interval_ms', String(Math.round(seconds * 1000)))
    .replaceAll('$__interval', interval)
    .replaceAll('$__unixEpochFrom()', String(Math.floor(from.getTime() / 1000)))
    .replaceAll('$__unixEpochTo()', String(Math.floor(to.getTime() / 1000)));
  // macros.go: `\$(identifier)\(([^\)]*)\)`; $__timeGroup directly followed by ',' gets the alias.
  return text.replace(/\$([_a-zA-Z0-9]+)\(([^)]*)\)/g, (whole, name, argText, offset) => {
    const args = argText.split(',').map((/** @type {string} */ a) => a.trim());
    const macro = name === '__timeGroup' && text[offset + whole.length] === ',' ? '__timeGroupAlias' : name;
    return sqlMacro(macro, args, from, to);
  });
}

/** @param {string} name @param {string[]} args @param {Date} from @param {Date} to @returns {string} */
function sqlMacro(name, args, from, to) {
  const group = () => {
    const s = intervalSeconds(args[1]);
    return `floor(extract(epoch from ${args[0]})/${s})*${s}`;
  };
  switch (name) {
    case '__time':
      return `${args[0]} AS "time"`;
    case '__timeEpoch':
      return `extract(epoch from ${args[0]}) as "time"`;
    case '__timeFilter':
      return `${args[0]} BETWEEN '${rfc3339Nano(from)}' AND '${rfc3339Nano(to)}'`;
    case '__timeFrom':
      return `'${rfc3339Nano(from)}'`;
    case '__timeTo':
      return `'${rfc3339Nano(to)}'`;
    case '__timeGroup':
      return group();
    case '__timeGroupAlias':
      return `${group()} AS "time"`;
    case '__unixEpochFilter':
      return `${args[0]} >= ${Math.floor(from.getTime() / 1000)} AND ${args[0]} <= ${Math.floor(to.getTime() / 1000)}`;
    default:
      throw new Error(`macro $${name} is not expanded by this test support; add it from macros.go`);
  }
}

/**
 * Grafana's prometheusSpecialRegexEscape: regex characters get a backslash, written doubled because
 * the value lands inside a PromQL string literal. @param {string} v
 */
const escapeRegex = (v) => v.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]'+?.()|]/g, '\\\\$&');

/**
 * Expands a Prometheus expression as Grafana does: a multi-value variable as (a|b) with regex
 * characters escaped, $__rate_interval and $__range as given.
 * @param {string} expr
 * @param {{ rateInterval: string, range: string, variables: Record<string, string[]> }} context
 */
export function expandPromql(expr, { rateInterval, range, variables }) {
  let text = expr.replaceAll('$__rate_interval', rateInterval).replaceAll('$__range', range);
  for (const [name, values] of Object.entries(variables)) {
    const value = values.length === 1 ? escapeRegex(values[0]) : `(${values.map(escapeRegex).join('|')})`;
    text = text.replace(new RegExp(`\\$\\{${name}\\}|\\$${name}\\b`, 'g'), value);
  }
  return text;
}

/** Expressions of prometheus/rules.yml: recording rules as they are, alerts also without their threshold. */
export function ruleExpressions() {
  const rules = /** @type {any} */ (
    YAML.parse(fs.readFileSync(path.join(PROMETHEUS_DIR, 'rules.yml'), 'utf8'))
  ).groups.flatMap((/** @type {any} */ g) => g.rules);
  return rules.map((/** @type {any} */ r) => {
    const name = r.record ?? r.alert;
    const expr = String(r.expr).replace(/\s+/g, ' ').trim();
    // An alert is `<measure> <comparison> <number>`: the measure must return data even when nothing fires.
    const measure = r.alert ? /^(.*\S)\s*(?:>|<|>=|<=|==|!=)\s*[\d.]+$/.exec(expr)?.[1] : expr;
    if (!measure) throw new Error(`alert ${name}: expected "<measure> <comparison> <number>", got ${expr}`);
    return { name, kind: r.record ? 'record' : 'alert', expr, measure };
  });
}
