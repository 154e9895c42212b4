// The dashboards as Grafana would load them: generated JSON up to date, structure, datasources,
// variables, layout, and the dashboard-linter rules (dashboards/.lint lists the ones excluded).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { generateDashboards } from '../../dashboards/generate.js';
import { DASHBOARD_DIR, loadDashboards, panelsOf, provisionedDatasources, queriesOf } from '../support/grafana.js';

const dashboards = loadDashboards();
const all = Object.values(dashboards);
const lintConfig = /** @type {any} */ (YAML.parse(fs.readFileSync(path.join(DASHBOARD_DIR, '.lint'), 'utf8')));
/** Variables Grafana defines itself. */
const BUILTIN = new Set([
  '__interval',
  '__interval_ms',
  '__rate_interval',
  '__range',
  '__range_s',
  '__range_ms',
  '__data',
  '__value',
  '__timeFilter',
  '__timeFrom',
  '__timeTo',
  '__timeGroup',
  '__timeGroupAlias',
  '__unixEpochFilter',
  '__from',
  '__to',
  '__dashboard',
  '__org',
  '__user',
  '__series',
  '__field',
]);

/** Rule excluded for a dashboard in .lint? @param {string} rule @param {any} dashboard */
const excluded = (rule, dashboard) => {
  const exclusion = lintConfig.exclusions?.[rule];
  if (!exclusion) return false;
  assert.ok(exclusion.reason, `.lint: ${rule} excluded without a reason`);
  return !exclusion.entries || exclusion.entries.some((/** @type {any} */ e) => e.dashboard === dashboard.title);
};

/** `$name`, `${name}` and `${name:format}` references in a text. @param {string} text */
const variableRefs = (text) =>
  [...text.matchAll(/\$\{([A-Za-z_]\w*)(?:[.:][^}]*)?\}|\$([A-Za-z_]\w*)/g)].map((m) => m[1] ?? m[2]);

describe('dashboards', () => {
  it('are committed exactly as dashboards/generate.js makes them (npm run dashboards)', () => {
    const fresh = generateDashboards();
    assert.deepEqual(Object.keys(dashboards).sort(), Object.keys(fresh).sort());
    for (const [file, text] of Object.entries(fresh)) {
      assert.equal(
        fs.readFileSync(path.join(DASHBOARD_DIR, file), 'utf8'),
        text,
        `${file} is stale: run npm run dashboards`,
      );
    }
  });

  it('have the three stable uids, titles and a schema version Grafana 10, 11 and 12 load', () => {
    assert.deepEqual(all.map((d) => d.uid).sort(), ['paasmon-live-run', 'paasmon-router-detail', 'paasmon-runs']);
    assert.equal(new Set(all.map((d) => d.title)).size, all.length);
    for (const d of all) {
      assert.equal(d.schemaVersion, 38, d.uid);
      assert.ok(d.uid.length <= 40, 'Grafana uids are at most 40 characters');
    }
  });

  for (const d of all) {
    describe(d.title, () => {
      const panels = panelsOf(d);
      const variables = new Map((d.templating?.list ?? []).map((/** @type {any} */ v) => [v.name, v]));
      const provisioned = provisionedDatasources();

      it('has unique panel ids and panels inside the grid that do not overlap', () => {
        assert.ok(panels.length > 5);
        const ids = panels.map((p) => p.id);
        assert.ok(ids.every((id) => Number.isInteger(id)));
        assert.equal(new Set(ids).size, ids.length, 'duplicate panel id');
        for (const p of panels) {
          const g = p.gridPos;
          assert.ok(
            g.x >= 0 && g.y >= 0 && g.w > 0 && g.h > 0 && g.x + g.w <= 24,
            `${p.title}: gridPos ${JSON.stringify(g)} outside the 24-column grid`,
          );
        }
        for (const [i, a] of panels.entries()) {
          for (const b of panels.slice(i + 1)) {
            const overlap =
              a.gridPos.x < b.gridPos.x + b.gridPos.w &&
              b.gridPos.x < a.gridPos.x + a.gridPos.w &&
              a.gridPos.y < b.gridPos.y + b.gridPos.h &&
              b.gridPos.y < a.gridPos.y + a.gridPos.h;
            assert.ok(!overlap, `"${a.title}" overlaps "${b.title}"`);
          }
        }
      });

      it('takes every datasource from a datasource variable or a provisioned datasource of the same type', () => {
        const refs = [
          ...panels
            .filter((p) => p.type !== 'row')
            .flatMap((p) => [p.datasource, ...(p.targets ?? []).map((/** @type {any} */ t) => t.datasource)]),
          ...[...variables.values()].filter((v) => v.type === 'query').map((v) => v.datasource),
          ...(d.annotations?.list ?? []).flatMap((/** @type {any} */ a) => [a.datasource, a.target?.datasource]),
        ];
        assert.ok(refs.length > 5);
        for (const ref of refs) {
          assert.ok(ref?.type && ref.uid, `datasource reference without type and uid: ${JSON.stringify(ref)}`);
          const name = /^\$\{(\w+)\}$/.exec(ref.uid)?.[1];
          if (name) {
            const variable = variables.get(name);
            assert.equal(variable?.type, 'datasource', `${ref.uid} is not a datasource variable`);
            assert.equal(
              variable.query,
              ref.type,
              `${ref.uid} selects ${variable.query} datasources, used as ${ref.type}`,
            );
          } else {
            assert.ok(
              provisioned.some((p) => p.uid === ref.uid && p.type === ref.type),
              `${JSON.stringify(ref)} is not provisioned`,
            );
          }
          assert.ok(
            provisioned.some((p) => p.type === ref.type),
            `no ${ref.type} datasource is provisioned`,
          );
        }
      });

      it('defines every variable its queries, titles and links use', () => {
        const texts = [
          ...queriesOf(d).map((q) => q.text),
          ...panels.map((p) => `${p.title} ${JSON.stringify(p.fieldConfig ?? {})} ${JSON.stringify(p.links ?? [])}`),
        ];
        const used = new Set(texts.flatMap(variableRefs));
        for (const name of used)
          assert.ok(variables.has(name) || BUILTIN.has(name), `$${name} is used but not defined in ${d.uid}`);
        // Links into another dashboard name variables that it defines.
        for (const link of JSON.stringify(d).matchAll(/\/d\/([\w-]+)\?([^"]*)/g)) {
          const target = all.find((x) => x.uid === link[1]);
          assert.ok(target, `link to unknown dashboard ${link[1]}`);
          for (const [, name] of link[2].matchAll(/var-(\w+)=/g)) {
            assert.ok(
              target.templating.list.some((/** @type {any} */ v) => v.name === name),
              `link sets var-${name}, which ${target.uid} lacks`,
            );
          }
        }
      });

      // The rules of grafana/dashboard-linter (lint/rule_*.go), checked here with the same names.
      it('passes the dashboard-linter rules', () => {
        const content = panels.filter((p) => p.type !== 'row');
        const rules = {
          'panel-title-description-rule': () =>
            content
              .filter((p) => !p.title?.trim() || !p.description?.trim())
              .map((p) => `${p.title}: title and description`),
          'panel-units-rule': () =>
            content
              .filter(
                (p) =>
                  ['timeseries', 'stat', 'gauge', 'bargauge', 'heatmap', 'xychart', 'barchart'].includes(p.type) &&
                  !p.fieldConfig?.defaults?.unit,
              )
              .map((p) => `${p.title}: no unit`),
          'panel-no-targets-rule': () => content.filter((p) => !p.targets?.length).map((p) => `${p.title}: no targets`),
          'panel-datasource-rule': () =>
            content
              .filter((p) => !/^\$\{\w+\}$/.test(p.datasource?.uid ?? ''))
              .map((p) => `${p.title}: datasource not from a variable`),
          'template-datasource-rule': () =>
            [...new Set(content.map((p) => p.datasource.type))]
              .filter(
                (type) =>
                  ![...variables.values()].some(
                    (v) => v.type === 'datasource' && v.name === 'datasource' && v.query === type,
                  ),
              )
              .map((type) => `no "datasource" variable of type ${type}`),
          'template-on-time-change-reload-rule': () =>
            [...variables.values()]
              .filter((v) => v.type === 'query' && v.refresh !== 2)
              .map((v) => `${v.name}: refresh ${v.refresh}`),
          'uneditable-dashboard-rule': () => (d.editable === false ? [] : ['editable']),
          'target-rate-interval-rule': () =>
            queriesOf(d)
              .filter((q) => q.type === 'prometheus')
              .flatMap((q) =>
                [...q.text.matchAll(/\b(?:rate|irate|increase|resets)\([^[]*\[([^\]]+)\]/g)]
                  .filter((m) => m[1] !== '$__rate_interval')
                  .map((m) => `${q.where}: [${m[1]}]`),
              ),
          'target-counter-agg-rule': () =>
            queriesOf(d)
              .filter((q) => q.type === 'prometheus' && q.where.includes(' panel '))
              .flatMap((q) =>
                [...q.text.matchAll(/\b(\w+_(?:total|bucket|count|sum))\b(\{[^}]*\})?(\[)?/g)]
                  .filter((m) => !m[3])
                  .map((m) => `${q.where}: counter ${m[1]} without a range function`),
              ),
        };
        const checked = Object.keys(rules).filter((rule) => !excluded(rule, d));
        const problems = Object.entries(rules)
          .filter(([rule]) => checked.includes(rule))
          .flatMap(([rule, check]) => check().map((p) => `${rule}: ${p}`));
        assert.deepEqual(problems, []);
        assert.ok(checked.length >= 6, 'most rules apply');
      });
    });
  }

  it('provisions a Prometheus and a PostgreSQL datasource from environment variables, and the dashboard folder', () => {
    const [prometheus, postgres] = provisionedDatasources();
    assert.equal(prometheus.type, 'prometheus');
    assert.equal(prometheus.url, '${PAASMON_PROMETHEUS_URL}');
    assert.equal(postgres.type, 'grafana-postgresql-datasource');
    assert.deepEqual(
      [postgres.url, postgres.user, postgres.jsonData.database, postgres.secureJsonData.password],
      ['${PAASMON_PG_HOST}', '${PAASMON_PG_USER}', '${PAASMON_PG_DATABASE}', '${PAASMON_PG_PASSWORD}'],
    );
    assert.equal(postgres.password, undefined, 'the password only in secureJsonData');
    const provider = /** @type {any} */ (
      YAML.parse(fs.readFileSync(path.join(DASHBOARD_DIR, 'provisioning', 'dashboards', 'paasmon.yml'), 'utf8'))
    ).providers[0];
    assert.deepEqual([provider.type, provider.options.path], ['file', '${PAASMON_DASHBOARDS_DIR}']);
  });
});
