// `paasmon demo --regression`'s flags and closing sentence: one setting, rounds and delay checked, the
// sweep's defaults untouched, and the sentence naming what compare found against what was put in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../core/errors.js';
import { closingSentence } from '../../collector/commands/demo/regression.js';
import { demoOptions } from '../../collector/commands/demo/options.js';

const base = { duration: '3s', warmup: '5s', instances: '1', coresPerInstance: '1', out: 'paasmon-demo' };

describe('demo --regression options', () => {
  it('defaults to node, 4 in flight, 3 rounds and 20 ms; the sweep keeps its own defaults', () => {
    const regression = demoOptions({ ...base, regression: true });
    assert.deepEqual(regression.impls, ['node']);
    assert.deepEqual(regression.parallel, [4]);
    assert.deepEqual(regression.regression, { rounds: 3, delayMs: 20 });
    const sweep = demoOptions(base);
    assert.deepEqual(sweep.impls, ['node', 'java']);
    assert.deepEqual(sweep.parallel, [1, 2, 4, 8, 16, 32]);
    assert.equal(sweep.regression, null);
  });

  it('takes --rounds, --delay and one --impl/--parallel', () => {
    const o = demoOptions({ ...base, regression: true, rounds: '5', delay: '1s', impl: 'java', parallel: '8' });
    assert.deepEqual(o.regression, { rounds: 5, delayMs: 1000 });
    assert.deepEqual([o.impls, o.parallel], [['java'], [8]]);
  });

  for (const [flags, message] of /** @type {const} */ ([
    [{ parallel: '4,8' }, /--regression compares rounds of one setting/],
    [{ impl: 'node,java' }, /--regression compares rounds of one setting/],
    [{ instances: '1,2' }, /--regression compares rounds of one setting/],
    [{ rate: '100' }, /--regression compares rounds of one setting/],
    [{ rounds: '1' }, /--rounds must be a whole number of at least 2/],
    [{ delay: 'soon' }, /--delay must be a duration/],
  ])) {
    it(`refuses ${JSON.stringify(flags)} with --regression`, () => {
      assert.throws(
        () => demoOptions({ ...base, regression: true, ...flags }),
        (err) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  it('refuses --rounds and --delay without --regression', () => {
    assert.throws(() => demoOptions({ ...base, rounds: '3' }), /--rounds goes with --regression/);
    assert.throws(() => demoOptions({ ...base, delay: '20ms' }), /--delay goes with --regression/);
  });
});

describe('demo --regression closing sentence', () => {
  const figure = (/** @type {string} */ label, /** @type {string} */ verdict, change = 0.5) => ({
    label,
    verdict,
    gated: true,
    change,
    change_kind: 'ratio',
  });

  it('names the regressed gated figures, the layer and the exit code', () => {
    const result = {
      verdict: 'regressed',
      layer: 'behind_router',
      figures: [
        figure('throughput', 'regressed', -0.6),
        figure('errors', 'unchanged', 0),
        { ...figure('e2e mean', 'regressed'), gated: false },
      ],
    };
    assert.equal(
      closingSentence(result, 3, 20),
      "compare's verdict: regressed (`paasmon compare` exited 3, as it would in a pipeline): throughput −60.0 %; " +
        "the layer that moved: behind the router (behind_router), where the candidate's 20 ms delay was put behind the router.",
    );
  });

  it('says when compare named another layer, and when the sides were not comparable', () => {
    const result = { verdict: 'regressed', layer: 'router', figures: [figure('throughput', 'regressed', -0.2)] };
    assert.match(closingSentence(result, 3, 20), /moved: in the router \(router\), though the candidate's 20 ms/);
    const apart = { verdict: 'not_comparable', layer: null, figures: [], comparable: { reasons: ['a', 'b'] } };
    assert.equal(
      closingSentence(apart, 5, 20),
      "compare's verdict: not comparable (`paasmon compare` exited 5, as it would in a pipeline): a; b.",
    );
  });

  it('says when the delay did not stand out, with the exit code of that verdict', () => {
    const sentence = closingSentence({ verdict: 'inconclusive', layer: null, figures: [] }, 4, 2);
    assert.match(sentence, /^compare's verdict: inconclusive \(`paasmon compare` exited 4, .*the 2 ms added behind/);
  });
});
