// prometheus/: every metric the dashboards and rules name is one paasmon exposes, with its labels.
// promtool's checks of the configs, the rules and the metrics are in test/full/promtool.test.js.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { loadDashboards, queriesOf, ruleExpressions } from '../support/grafana.js';

describe('prometheus/', () => {
  it('names only metrics that exporters/prometheus.js registers, with their labels', () => {
    const { registry } = createPrometheusSink({ collectDefaultMetrics: false });
    /** @param {string} name */
    const metric = (name) => /** @type {{ labelNames?: string[] } | undefined} */ (registry.getSingleMetric(name));
    const texts = [
      ...Object.values(loadDashboards())
        .flatMap(queriesOf)
        .filter((q) => q.type === 'prometheus')
        .map((q) => q.text),
      ...ruleExpressions().map((r) => r.expr),
    ];
    const records = new Set(
      ruleExpressions()
        .filter((r) => r.kind === 'record')
        .map((r) => r.name),
    );
    let names = 0;
    for (const text of texts) {
      for (const [, name, selector] of text.matchAll(/(?<![:\w])(paasmon_[a-z0-9_]+)(?![:\w])(\{[^}]*\})?/g)) {
        names++;
        const base = name.replace(/_(bucket|sum|count)$/, '');
        const found = metric(name) ?? metric(base);
        assert.ok(found, `${name} is not exposed by paasmon`);
        const labels = new Set([...(found.labelNames ?? []), ...(name.endsWith('_bucket') ? ['le'] : [])]);
        for (const [, label] of (selector ?? '').matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g))
          assert.ok(labels.has(label), `${name} has no label ${label}`);
      }
      for (const [, record] of text.matchAll(/\b(\w+:paasmon_\w+:\w+)/g))
        assert.ok(records.has(record), `${record} is not recorded`);
    }
    assert.ok(names > 40);
  });
});
