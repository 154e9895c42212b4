// prometheus/: the example configs, the rules and their unit tests through the real promtool, and
// every metric the dashboards and rules name is one paasmon exposes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { PROMETHEUS_DIR, loadDashboards, queriesOf, ruleExpressions } from '../support/grafana.js';

/** @param {string[]} args @param {string} [cwd] */
function promtool(args, cwd = PROMETHEUS_DIR) {
  const result = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool could not run (apt-get install -y prometheus): ${result.error.message}`);
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('prometheus/', () => {
  it('promtool check config: the local example', () => {
    const { code, output } = promtool(['check', 'config', 'prometheus.yml']);
    assert.equal(code, 0, output);
    assert.match(output, /SUCCESS: 1 rule files found/);
  });

  it('promtool check config: the remote_write example (long-term storage)', () => {
    const { code, output } = promtool(['check', 'config', 'prometheus-remote-write.yml']);
    assert.equal(code, 0, output);
    const config = YAML.parse(fs.readFileSync(path.join(PROMETHEUS_DIR, 'prometheus-remote-write.yml'), 'utf8'));
    assert.match(config.remote_write[0].url, /\/api\/v1\/write$/);
  });

  it('promtool check config: the Cloud Foundry examples (route, apps.internal), with the bearer-token file', () => {
    for (const example of ['prometheus-cf.yml', 'prometheus-cf-internal.yml']) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-promcfg-'));
      try {
        for (const f of [example, 'rules.yml']) fs.copyFileSync(path.join(PROMETHEUS_DIR, f), path.join(dir, f));
        const missing = promtool(['check', 'config', example], dir);
        assert.notEqual(missing.code, 0, `${example}: the token file is required`);
        fs.writeFileSync(path.join(dir, 'metrics-bearer-token'), 'token\n', { mode: 0o600 });
        const { code, output } = promtool(['check', 'config', example], dir);
        assert.equal(code, 0, output);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    const internal = YAML.parse(fs.readFileSync(path.join(PROMETHEUS_DIR, 'prometheus-cf-internal.yml'), 'utf8'));
    assert.deepEqual(internal.scrape_configs[0].dns_sd_configs, [
      { names: ['paasmon-collector.apps.internal'], type: 'A', port: 8080 },
    ]);
  });

  it('promtool check rules and test rules (every alert firing and not firing)', () => {
    const check = promtool(['check', 'rules', 'rules.yml']);
    assert.equal(check.code, 0, check.output);
    const test = promtool(['test', 'rules', 'rules.test.yml']);
    assert.equal(test.code, 0, test.output);
    assert.match(test.output, /SUCCESS/);

    const alerts = ruleExpressions()
      .filter((r) => r.kind === 'alert')
      .map((r) => r.name);
    assert.ok(alerts.length >= 8);
    const cases = /** @type {any} */ (
      YAML.parse(fs.readFileSync(path.join(PROMETHEUS_DIR, 'rules.test.yml'), 'utf8'))
    ).tests.flatMap((/** @type {any} */ t) => t.alert_rule_test ?? []);
    for (const alert of alerts) {
      const mine = cases.filter((/** @type {any} */ c) => c.alertname === alert);
      assert.ok(
        mine.some((/** @type {any} */ c) => c.exp_alerts.length > 0),
        `${alert}: no test where it fires`,
      );
      assert.ok(
        mine.some((/** @type {any} */ c) => c.exp_alerts.length === 0),
        `${alert}: no test where it stays quiet`,
      );
    }
  });

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
