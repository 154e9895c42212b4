// prometheus/ through the real promtool: the example configs, the rules and their unit tests, and
// the metrics paasmon renders.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { PROMETHEUS_DIR, ruleExpressions } from '../support/grafana.js';

/** @param {string[]} args @param {{ cwd?: string, input?: string }} [options] */
function promtool(args, { cwd = PROMETHEUS_DIR, input } = {}) {
  const result = spawnSync('promtool', args, { cwd, input, encoding: 'utf8' });
  if (result.error) throw new Error(`promtool could not run (apt-get install -y prometheus): ${result.error.message}`);
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('prometheus/ through promtool', () => {
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
        const missing = promtool(['check', 'config', example], { cwd: dir });
        assert.notEqual(missing.code, 0, `${example}: the token file is required`);
        fs.writeFileSync(path.join(dir, 'metrics-bearer-token'), 'token\n', { mode: 0o600 });
        const { code, output } = promtool(['check', 'config', example], { cwd: dir });
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

  it('renders metrics that promtool accepts', async () => {
    // prom-client's own default metrics (nodejs_active_handles_total gauges) fail promtool's lint;
    // this checks paasmon's metrics.
    const sink = createPrometheusSink({ collectDefaultMetrics: false });
    const ts = new Date('2026-11-22T10:00:00Z');
    const identity = { appGuid: 'g-1', appName: 'shop', processType: 'web', instanceIndex: 0, state: 'RUNNING' };
    const usage = { cpuPercent: 12.5, cpuEntitlementPercent: 50, memBytes: 1000, memQuotaBytes: 2000 };
    const disk = { diskBytes: 3000, diskQuotaBytes: 4000, uptimeSeconds: 60 };
    sink.write([{ kind: 'instance_sample', ts, ...identity, ...usage, ...disk }], { complete: true });
    sink.self.errors.inc({ source: 'cloud-controller', reason: 'timeout' });
    sink.self.pollDuration.observe({ source: 'cloud-controller' }, 0.2);
    const text = await sink.registry.metrics();
    const check = promtool(['check', 'metrics'], { input: text });
    assert.equal(check.code, 0, check.output);
    assert.doesNotMatch(text, /\binstance="/, 'the label "instance" belongs to Prometheus');
  });
});
