import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import {
  errorTitle,
  fractionToPercent,
  parseV2Stats,
  parseV3Stats,
} from '../../collector/sources/cloud-controller/parse.js';

const fixture = (/** @type {string} */ name) =>
  JSON.parse(fs.readFileSync(new URL(`../fixtures/cloud-controller/${name}`, import.meta.url), 'utf8'));
const ts = new Date('2026-11-22T10:00:05.000Z');
const ctx = { ts, appGuid: '1cb006ee-fb05-47e1-b541-c34179ddc446', appName: 'my_app', processType: 'web' };

/** Dates as ISO strings so expected files can be plain JSON. @param {unknown} value */
const plain = (value) => JSON.parse(JSON.stringify(value));

describe('parseV3Stats', () => {
  for (const name of [
    'v3-running-starting-down',
    'v3-empty-usage',
    'v3-old-cc-no-newer-fields',
    'v3-multicore-crashed',
  ]) {
    it(`${name}.input.json -> ${name}.expected.json`, () => {
      const parsed = parseV3Stats(fixture(`${name}.input.json`), ctx);
      assert.deepEqual(plain(parsed), fixture(`${name}.expected.json`));
    });
  }

  it('records every sample at the poll time, whatever usage.time says', () => {
    const { samples } = parseV3Stats(fixture('v3-running-starting-down.input.json'), ctx);
    assert.ok(samples.length >= 2, `the fixture has several instances (${samples.length})`);
    assert.ok(samples.every((s) => s.ts === ts));
  });

  it('sorts by index and warns on entries without an index', () => {
    const { samples, warnings } = parseV3Stats(
      { resources: [{ index: 1, state: 'DOWN' }, { state: 'RUNNING' }, { index: 0, state: 'DOWN' }] },
      ctx,
    );
    assert.deepEqual(
      samples.map((s) => s.instanceIndex),
      [0, 1],
    );
    assert.deepEqual(
      warnings.map((w) => w.reason),
      ['bad_payload'],
    );
  });

  it('turns a body without resources into a warning, not an exception', () => {
    for (const body of [null, 'oops', {}, { resources: 'x' }]) {
      const parsed = parseV3Stats(body, ctx);
      assert.equal(parsed.samples.length, 0);
      assert.equal(parsed.warnings[0].reason, 'bad_payload');
    }
  });

  it('never records negative or non-numeric usage', () => {
    const { samples, warnings } = parseV3Stats(
      { resources: [{ index: 0, state: 'RUNNING', usage: { cpu: -1, mem: 'x', disk: 5 }, mem_quota: 10 }] },
      ctx,
    );
    assert.equal(samples[0].cpuPercent, null);
    assert.equal(samples[0].memBytes, null);
    assert.equal(samples[0].diskBytes, 5);
    assert.deepEqual(
      warnings.map((w) => w.reason),
      ['bad_usage'],
    );
  });
});

describe('parseV2Stats', () => {
  it('sorts string indices numerically ("10" after "9") and converts units', () => {
    const parsed = parseV2Stats(fixture('v2-eleven-instances.input.json'), ctx);
    assert.deepEqual(plain(parsed), fixture('v2-eleven-instances.expected.json'));
    assert.deepEqual(
      parsed.samples.map((s) => s.instanceIndex),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  it('warns on keys that are not instance indices', () => {
    const parsed = parseV2Stats({ x: {}, 0: { state: 'DOWN', since: 1 } }, ctx);
    assert.equal(parsed.samples.length, 1);
    assert.equal(parsed.samples[0].state, 'DOWN');
    assert.equal(parsed.warnings[0].reason, 'bad_payload');
  });
});

describe('unit conversion', () => {
  it('turns the fraction of one core into percent of one core', () => {
    // Independent computation: percent = fraction * 100, checked with exact decimal cases.
    for (const [fraction, percent] of [
      [0, 0],
      [0.25, 25],
      [1, 100],
      [2.5, 250],
      [0.013, 1.3],
    ]) {
      assert.ok(
        Math.abs(/** @type {number} */ (fractionToPercent(fraction)) - percent) < 1e-9,
        `${fraction} -> ${percent}`,
      );
    }
    assert.equal(fractionToPercent(null), null);
    assert.equal(fractionToPercent(undefined), null);
    assert.equal(fractionToPercent(Number.NaN), null);
  });
});

describe('errorTitle', () => {
  it('reads v3 and v2 error bodies, also as text', () => {
    assert.equal(
      errorTitle({ errors: [{ code: 1000, title: 'CF-InvalidAuthToken', detail: 'Invalid Auth Token' }] }),
      'CF-InvalidAuthToken',
    );
    assert.equal(
      errorTitle('{"errors":[{"detail":"Rate Limit Exceeded","title":"CF-RateLimitExceeded","code":10013}]}'),
      'CF-RateLimitExceeded',
    );
    assert.equal(
      errorTitle({ description: 'x', error_code: 'CF-StatsUnavailable', code: 200002 }),
      'CF-StatsUnavailable',
    );
    assert.equal(errorTitle('<html>'), undefined);
  });
});
