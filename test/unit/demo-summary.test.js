// The demo's comparison figures: a USL fit per implementation and instance count when the load
// swept is parallel requests, and the closing sentences computed from the runs' own figures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closingSentences, scalingLines } from '../../collector/commands/demo/summary.js';
import { scalingFits } from '../../report/comparison.js';
import { uslThroughput } from '../../report/usl.js';

const LOADS = [1, 2, 4, 8, 16, 32];

/** Runs whose throughputs lie on a known USL curve. */
function sweep() {
  let id = 0;
  /** @type {Record<string, any>[]} */
  const runs = [];
  for (const [impl, lambda, sigma, kappa] of /** @type {const} */ ([
    ['node', 100, 0.3, 0.002],
    ['java', 80, 0.1, 0.01],
  ])) {
    for (const instances of [1, 2]) {
      for (const parallel of LOADS) {
        runs.push({
          run_id: ++id,
          label: `${impl} ${instances}`,
          implementation: impl,
          instances,
          parallel,
          throughput_rps: uslThroughput(lambda * instances, sigma, kappa, parallel),
          rpm_per_cpu_percent: impl === 'java' ? 900 : 600,
          e2e_mean_ms: 10,
          outside_router_mean_ms: impl === 'java' ? 2 : 6,
          gorouter_mean_ms: 0.5,
          behind_router_mean_ms: impl === 'java' ? 7 : 3,
        });
      }
    }
  }
  return runs;
}

describe('the demo summary', () => {
  it('fits the USL per implementation and instance count on a parallel sweep, its points the runs', () => {
    const runs = sweep();
    const fits = scalingFits(runs, 'parallel');
    assert.deepEqual(
      fits.map((f) => f.key),
      ['node at 1 instance', 'node at 2 instances', 'java at 1 instance', 'java at 2 instances'],
    );
    for (const f of fits) {
      const [impl, , n] = f.key.split(' ');
      const mine = runs.filter((r) => r.implementation === impl && r.instances === Number(n));
      assert.deepEqual(
        f.points,
        mine.map((r) => ({ n: r.parallel, throughput: r.throughput_rps, runId: r.run_id })),
      );
      const expected = impl === 'node' ? { sigma: 0.3, kappa: 0.002 } : { sigma: 0.1, kappa: 0.01 };
      assert.ok(Math.abs((f.fit?.sigma ?? -1) - expected.sigma) < 1e-4, `${f.key}: σ ${f.fit?.sigma}`);
      assert.ok(Math.abs((f.fit?.kappa ?? -1) - expected.kappa) < 1e-5, `${f.key}: κ ${f.fit?.kappa}`);
    }
    // N* = floor(sqrt((1 - σ) / κ)): node sqrt(0.7 / 0.002) = 18.7, java sqrt(0.9 / 0.01) = 9.5.
    const lines = scalingLines(/** @type {any} */ ({ scaling: fits }));
    assert.match(lines[0], /^node at 1 instance: σ = 0\.300, κ = 0\.00200, N\* = 18 in flight, X\(N\*\) = /);
    assert.match(lines[2], /^java at 1 instance: σ = 0\.100, κ = 0\.0100, N\* = 9 in flight/);
    assert.match(scalingFits(runs, 'auto')[0].message ?? '', /both parallel requests and instances vary/);
  });

  it('says which implementation did more per CPU %, where each peaked and the largest latency part', () => {
    const runs = sweep();
    const text = closingSentences(/** @type {any} */ ({ runs, scaling: scalingFits(runs, 'parallel') })).join(' ');
    assert.match(
      text,
      /^java did more requests per CPU %: 900\.0 req\/min per CPU % \(mean over its runs\) against node 600\.0\./,
    );
    // X(N*) by hand: 100 * 18 / (1 + 0.3 * 17 + 0.002 * 18 * 17) = 268.2; 80 * 9 / (1 + 0.1 * 8 + 0.01 * 72) = 285.7.
    assert.match(text, /Scaling stopped \(USL peak\): node at 1 instance at N\* = 18 in flight \(268 req\/s\); /);
    assert.match(text, /java at 1 instance at N\* = 9 in flight \(286 req\/s\)/);
    assert.match(
      text,
      /Largest latency contributor \(mean over the runs\): node outside the router \(client, network\), 6\.00 ms of 10\.00 ms; java behind the router \(app and database\), 7\.00 ms of 10\.00 ms\.$/,
    );
  });
});
