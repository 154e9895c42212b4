// `paasmon compare` from rounds to verdict, in memory: a delay in one layer regresses and is
// named, the same setting is unchanged, the reverse improves, other settings are not comparable,
// a gated figure without data leaves the gate, runs without router records name no layer and say
// so, and how many more rounds an open figure needs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparability, mixDistance } from '../../report/compare/comparable.js';
import { buildCompare } from '../../report/compare/index.js';
import { moreRounds } from '../../report/compare/verdict.js';
import { side } from '../support/compare-data.js';

const baseline = side({ firstId: 1, rounds: 5, seed: 10 });

describe('compare verdicts', () => {
  it('regresses on a delay behind the router, names that layer, and improves the other way', () => {
    const slower = side({ firstId: 10, rounds: 5, seed: 20, behind: 12 });
    const result = buildCompare({ baseline, candidate: slower }, { seed: 5 });
    assert.equal(result.verdict, 'regressed', result.headline);
    assert.equal(result.layer, 'behind_router');
    const mean = /** @type {NonNullable<typeof result.layers.mean>} */ (result.layers.mean);
    const total = mean.layers.reduce((s, l) => s + l.change_ms, 0);
    assert.ok(Math.abs(total - mean.total_change_ms) < 1e-9, 'the layers add up to the mean change');
    assert.equal(buildCompare({ baseline: slower, candidate: baseline }, { seed: 5 }).verdict, 'improved');
  });

  it('finds the same setting unchanged, and gives the same result for the same seed', () => {
    const again = side({ firstId: 10, rounds: 5, seed: 30 });
    const first = buildCompare({ baseline, candidate: again }, { seed: 9 });
    assert.equal(first.verdict, 'unchanged', first.headline);
    assert.deepEqual(buildCompare({ baseline, candidate: again }, { seed: 9 }), first);
  });

  it('is not comparable at another load, unless forced', () => {
    const busier = side({ firstId: 10, rounds: 5, seed: 30, run: { parallel: 16 } });
    const refused = buildCompare({ baseline, candidate: busier }, { seed: 1 });
    assert.equal(refused.verdict, 'not_comparable');
    assert.match(refused.headline, /^not comparable: parallel requests differ: baseline 8, candidate 16/);
    const forced = buildCompare({ baseline, candidate: busier }, { seed: 1, force: true });
    assert.equal(forced.comparable.forced, true);
    assert.notEqual(forced.verdict, 'not_comparable');
  });

  it('leaves a gated figure without data out of the gate with a line', () => {
    const unpolled = side({ firstId: 10, rounds: 5, seed: 30 }).map((d) => ({ ...d, usage: [] }));
    const result = buildCompare({ baseline, candidate: unpolled }, { seed: 1 });
    assert.equal(result.verdict, 'unchanged', result.headline);
    assert.equal(result.figures.find((f) => f.name === 'cpu_ms_per_request')?.verdict, 'missing');
    assert.match(result.missing[0], /^cpu_ms_per_request: no instance samples/);
  });

  it('names no layer for runs without router records, with a line naming them and their tool', () => {
    const none = { matched: 0, matchedE2eSum: 0, outsideSum: 0, routerSum: 0, behindSum: 0 };
    const slower = side({ firstId: 10, rounds: 5, seed: 20, behind: 12 });
    const unmatched = slower.map((d) => ({
      ...d,
      run: { ...d.run, meta: { tool: 'hey' } },
      blocks: d.blocks.map((b) => ({ ...b, ...none })),
    }));
    const result = buildCompare({ baseline, candidate: unmatched }, { seed: 1 });
    assert.equal(result.verdict, 'regressed', result.headline);
    assert.equal(result.layer, null);
    assert.equal(result.layers.mean, null);
    const ids = slower.map((d) => d.run.run_id).join(', ');
    assert.ok(
      result.missing.includes(
        `layers: no router records matched the requests of runs ${ids} (hey), so no layer is named; ingest the ` +
          'gorouter logs (`paasmon ingest`), and send an id per request from the tool (`paasmon correlate --run ID` ' +
          'says how)',
      ),
      result.missing.join('\n'),
    );
    assert.ok(
      !buildCompare({ baseline, candidate: baseline }, { seed: 1 }).missing.some((m) => m.startsWith('layers')),
    );
  });

  it('checks the settings and the endpoint mix of both sides', () => {
    const run = { app_name: 'shop', instances: 2, parallel: null, cores_per_instance: 1 };
    const mix = {
      baseline: new Map([
        ['/a', 50],
        ['/b', 50],
      ]),
      candidate: new Map([
        ['/a', 80],
        ['/b', 20],
      ]),
    };
    const reasons = comparability(
      [
        { ...run, meta: { rate: '100' } },
        { ...run, meta: { rate: '100' } },
      ],
      [{ ...run, meta: { rate: '200' } }],
      mix,
    );
    assert.deepEqual(reasons, [
      'rate differ: baseline 100, candidate 200',
      'the endpoint mix differs by 30.0 % of requests (tolerance 10.0 %; --mix-tolerance)',
    ]);
    assert.equal(mixDistance(mix.baseline, new Map()), null);
    assert.match(
      comparability([run, { ...run, instances: 3 }], [run], mix, 0.5).join(),
      /baseline's runs differ in instances \(2 and 3\)/,
    );
  });

  it('asks for more rounds as the square of the interval over the distance to the threshold', () => {
    // Half-width 2 × the distance to the nearest edge with 3 rounds: about 12 rounds, 9 more.
    const se = 0.02;
    const change = { change: 0, interval: /** @type {[number, number]} */ ([0, 0]), estimate: 0.03, se, df: 1e6 };
    const half = 1.959964 * se;
    const distance = 0.03 - Math.log(1.05);
    assert.equal(moreRounds(change, 0.05, 'relative', 3), Math.ceil(3 * (half / distance) ** 2) - 3);
  });
});

describe('compare sides as given on the command line', () => {
  it('reads run ids, labels and since:T', async () => {
    const { sideSelection } = await import('../../collector/commands/compare.js');
    const now = new Date('2026-11-28T12:00:00Z');
    assert.deepEqual(sideSelection('12, 13,12', '--baseline', now), { runs: [12, 13] });
    assert.deepEqual(sideSelection('label:java 2 instances', '--baseline', now), { label: 'java 2 instances' });
    assert.deepEqual(sideSelection('main', '--baseline', now), { label: 'main' });
    assert.deepEqual(sideSelection('since:now-2h', '--baseline', now), { since: '2026-11-28T10:00:00.000Z' });
    assert.throws(() => sideSelection('12,0', '--baseline', now), /--baseline takes run ids/);
    assert.throws(() => sideSelection('since:yesterday', '--candidate', now), /--candidate must be an ISO 8601 time/);
  });
});
