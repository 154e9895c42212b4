// `paasmon compare` on runs imported from other load tools, as a user makes them: result files
// written with a known shift, `paasmon import` (and `paasmon ingest --file` of the router's lines),
// then compare. JMeter's JTL carries the paasmon_id of each request, so its runs have their layers
// as the load generator's do; hey's CSV has no ids, so its runs have no layer, and the gate still
// judges e2e, throughput and errors and says what is missing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { closedLoad, heyCsv, jmeterJtl, routerLog } from '../support/result-files.js';

/** JMeter: ms added behind the router. hey: the factor on every request's time. */
const SHIFT_MS = 10;
const SCALE = 1.3;
const SETTINGS = {
  jmeter: { base: {}, again: {}, slower: { behindShiftMs: SHIFT_MS } },
  hey: { base: {}, again: {}, slower: { scale: SCALE } },
};

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-compare-imported-'));
/**
 * The generated requests of each side, for the expected figures.
 * @type {Record<string, import('../support/result-files.js').Request[]>}
 */
const sent = {};
const env = () => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });

before(async () => {
  db = await startTestDatabase();
  let minute = 0;
  /** @type {string[]} */
  const router = [];
  for (let k = 0; k < 3; k++) {
    for (const [tool, sides] of Object.entries(SETTINGS)) {
      for (const [side, shift] of Object.entries(sides)) {
        const label = `${tool} ${side}`;
        const startMs = Date.parse('2026-06-01T08:00:00Z') + 60_000 * minute++;
        const resolutionMs = tool === 'hey' ? 0.1 : 1;
        const requests = closedLoad({ startMs, seed: minute, resolutionMs, ...shift });
        (sent[label] ??= []).push(...requests);
        const file = path.join(dir, `${label.replace(' ', '-')}-${k}.${tool === 'hey' ? 'csv' : 'jtl'}`);
        fs.writeFileSync(file, tool === 'hey' ? heyCsv(requests) : jmeterJtl(requests));
        // The router logs hey's requests too, with no id to join them by.
        router.push(routerLog(requests, { ids: tool === 'jmeter' }));
        const started = tool === 'hey' ? ['--started-at', new Date(startMs).toISOString()] : [];
        const args = ['import', file, '--app', 'shop', '--label', label, '--parallel', '8', ...started];
        const imported = await runCli(args, env());
        assert.equal(imported.code, 0, imported.stderr);
      }
    }
  }
  const log = path.join(dir, 'router.log');
  fs.writeFileSync(log, router.join(''));
  const ingest = await runCli(['ingest', '--file', log, '--app', 'shop'], env());
  assert.equal(ingest.code, 0, ingest.stderr);
});

after(async () => {
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** @param {string} baseline @param {string} candidate */
async function compare(baseline, candidate) {
  const args = ['compare', '--baseline', `label:${baseline}`, '--candidate', `label:${candidate}`];
  const run = await runCli([...args, '--format', 'json', '--seed', '11'], env(), { timeoutMs: 120_000 });
  assert.ok(run.stdout.startsWith('{'), `${run.stdout}\n${run.stderr}`);
  return { code: run.code, result: JSON.parse(run.stdout) };
}
/** @param {any} result @param {string} name */
const figure = (result, name) => result.figures.find((/** @type {any} */ f) => f.name === name);
/** @param {number[]} xs */
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** percentile_cont. @param {number[]} xs @param {number} p */
function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  const at = p * (s.length - 1);
  return s[Math.floor(at)] + (at - Math.floor(at)) * (s[Math.ceil(at)] - s[Math.floor(at)]);
}
/** @param {string} label */
const e2e = (label) => sent[label].map((r) => r.e2eMs);

describe('paasmon compare on imported JMeter runs (ids in the JTL)', () => {
  it('regresses on a delay behind the router, names that layer and measures the shift', async () => {
    const { code, result } = await compare('jmeter base', 'jmeter slower');
    assert.equal(result.verdict, 'regressed', result.headline);
    assert.equal(code, 3);
    assert.equal(result.layer, 'behind_router');
    const byLayer = Object.fromEntries(result.layers.mean.layers.map((/** @type {any} */ l) => [l.layer, l]));
    assert.ok(Math.abs(byLayer.behind_router.change_ms - SHIFT_MS) < 0.25, JSON.stringify(byLayer));
    assert.ok(Math.abs(byLayer.outside_router.change_ms) < 0.05, JSON.stringify(byLayer));
    assert.ok(Math.abs(byLayer.router.change_ms) < 0.05, JSON.stringify(byLayer));
    // The generated whole rounds against the steady windows compared: within sampling.
    const expected = mean(e2e('jmeter slower')) / mean(e2e('jmeter base')) - 1;
    assert.ok(Math.abs(figure(result, 'e2e_mean_ms').change - expected) < 0.02, `${expected}`);
    assert.equal(figure(result, 'e2e_p95_ms').verdict, 'regressed');
    assert.equal(figure(result, 'error_ratio').verdict, 'unchanged');
  });

  it('finds the same setting twice unchanged, and the reverse improved in the same layer', async () => {
    const same = await compare('jmeter base', 'jmeter again');
    assert.equal(same.result.verdict, 'unchanged', same.result.headline);
    assert.equal(same.code, 0);
    const reverse = await compare('jmeter slower', 'jmeter base');
    assert.equal(reverse.result.verdict, 'improved', reverse.result.headline);
    assert.equal(reverse.result.layer, 'behind_router');
  });
});

describe('paasmon compare on imported hey runs (no ids: no layers)', () => {
  it('judges e2e, throughput and errors, names no layer, and says what is missing', async () => {
    const { code, result } = await compare('hey base', 'hey slower');
    assert.equal(result.verdict, 'regressed', result.headline);
    assert.equal(code, 3);
    assert.equal(result.layer, null);
    assert.equal(result.layers.mean, null);
    const p95 = figure(result, 'e2e_p95_ms');
    assert.equal(p95.verdict, 'regressed');
    const expectedP95 = percentile(e2e('hey slower'), 0.95) / percentile(e2e('hey base'), 0.95) - 1;
    assert.ok(Math.abs(p95.change - expectedP95) < 0.04, `${p95.change} against ${expectedP95}`);
    // A closed load of 8 users: throughput falls as the mean time grows.
    const throughput = figure(result, 'throughput_rps');
    assert.equal(throughput.verdict, 'regressed');
    const expectedRps = mean(e2e('hey base')) / mean(e2e('hey slower')) - 1;
    assert.ok(Math.abs(throughput.change - expectedRps) < 0.02, `${throughput.change} against ${expectedRps}`);
    assert.equal(figure(result, 'error_ratio').verdict, 'unchanged');
    for (const name of ['outside_router_mean_ms', 'router_mean_ms', 'behind_router_mean_ms'])
      assert.equal(figure(result, name).verdict, 'missing');
    const line = /^layers: no router records matched the requests of runs [\d, ]+ \(hey\), so no layer is named;/;
    assert.ok(
      result.missing.some((/** @type {string} */ m) => line.test(m)),
      result.missing.join('\n'),
    );
    const args = ['compare', '--baseline', 'label:hey base', '--candidate', 'label:hey slower', '--seed', '11'];
    const table = await runCli(args, env(), { timeoutMs: 120_000 });
    assert.equal(table.code, 3);
    assert.match(table.stdout, /^layers: no router records matched the requests of\s+runs [\d,\s]+\(hey\)/m);
  });

  it('finds the same setting twice unchanged', async () => {
    const { code, result } = await compare('hey base', 'hey again');
    assert.equal(result.verdict, 'unchanged', result.headline);
    assert.equal(code, 0);
  });
});
