import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorKind } from '../../loadgen/generate.js';
import { timeLeft } from '../../loadgen/run.js';
import { createStats } from '../../loadgen/stats.js';
import { formatSchedule } from '../../loadgen/summary.js';

describe('createStats', () => {
  it('counts, mean, sample stddev, max, statuses and errors match a direct computation', () => {
    const durations = [1, 2, 3, 4, 100];
    const stats = createStats();
    durations.forEach((d, i) => stats.record(d, i === 4 ? 503 : 200, null));
    stats.record(7, 0, 'timeout');
    const all = [...durations, 7];
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    const variance = all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1);
    assert.equal(stats.count, 6);
    assert.ok(Math.abs(stats.meanMs - mean) < 1e-9);
    assert.ok(Math.abs(stats.stddevMs - Math.sqrt(variance)) < 1e-9);
    assert.equal(stats.maxMs, 100);
    assert.deepEqual(
      [...stats.statuses],
      [
        [200, 4],
        [503, 1],
      ],
    );
    assert.deepEqual([...stats.errors], [['timeout', 1]]);
    assert.equal(stats.errorCount, 2, 'a 5xx and a request without response');
  });

  it('percentiles within the histogram precision (3 significant digits) of the exact ranks', () => {
    const stats = createStats();
    const values = Array.from({ length: 1000 }, (_, i) => (i + 1) * 0.731);
    for (const v of values) stats.record(v, 200, null);
    for (const p of [50, 90, 99]) {
      const exact = values[Math.ceil((p / 100) * values.length) - 1];
      const got = stats.percentile(p);
      assert.ok(Math.abs(got - exact) / exact < 0.002, `p${p}: ${got} vs ${exact}`);
    }
  });

  it('is all zeros when empty', () => {
    const stats = createStats();
    assert.deepEqual([stats.count, stats.meanMs, stats.stddevMs, stats.percentile(99)], [0, 0, 0, 0]);
  });
});

describe('send time after due and its cause', () => {
  /** @param {Array<[number, number]>} sends [send time after due, the generator's own part] in ms */
  const statsOf = (sends) => {
    const stats = createStats();
    for (const [lag, own] of sends) stats.recordSend(lag, own);
    return stats;
  };
  /** @param {number} scheduled @param {number} sent */
  const tally = (scheduled, sent) => ({
    scheduled,
    sent,
    stoppedBy: /** @type {const} */ ('deadline'),
    stoppedAtMs: 1000,
    fullRateScheduled: scheduled,
    fullRateSent: sent,
    fullRateMs: 1000,
  });
  /** @param {ReturnType<typeof createStats>} stats @param {number} opened @param {number} [unsent] */
  const warning = (stats, opened, unsent = 0) =>
    /WARNING: .*/.exec(
      formatSchedule(stats, {
        rate: 100,
        rampMs: 0,
        schedule: tally(stats.sends + unsent, stats.sends),
        connections: 4,
        connectionsOpened: opened,
      }),
    )?.[0] ?? '';

  it("keeps the generator's own part apart, and counts a late send as its when it holds most of the lateness", () => {
    // 50 ms late: 40 before the generator took it; 30 ms late: 5 of it; 12 ms late: 6 of it (half).
    const stats = statsOf([
      [50, 40],
      [30, 5],
      [12, 6],
      [2, 1],
    ]);
    assert.equal(stats.lateSends, 3);
    assert.equal(stats.lateByGenerator, 2);
    assert.equal(stats.sendLagMaxMs, 50);
    assert.equal(stats.generatorLagMaxMs, 40);
    // p50 of [1, 5, 6, 40] ms and of [2, 12, 30, 50] ms: the second of four (within HDR's 0.1 %).
    assert.ok(Math.abs(stats.generatorLagPercentile(50) - 5) < 0.01, `${stats.generatorLagPercentile(50)}`);
    assert.ok(Math.abs(stats.sendLagPercentile(50) - 12) < 0.02, `${stats.sendLagPercentile(50)}`);
  });

  it('the warning names where most late and unsent requests lost their time', () => {
    const waitedForConnections = statsOf([
      [80, 1],
      [60, 2],
      [40, 10],
    ]);
    assert.match(warning(waitedForConnections, 4), /; all 4 connections were busy: raise --connections/);
    assert.match(warning(waitedForConnections, 2), /; every open connection was busy while more were being opened/);
    // Never sent: the generator never took them, so they count as its own, with the late sends.
    assert.match(warning(waitedForConnections, 4, 3), /3 due were never sent; the generator could not keep up/);
    assert.match(warning(waitedForConnections, 4, 1), /1 due were never sent; all 4 connections were busy/);
    assert.match(
      warning(
        statsOf([
          [80, 70],
          [60, 2],
        ]),
        4,
      ),
      /; the generator could not keep up/,
    );
    assert.equal(warning(statsOf([[5, 1]]), 4), '', 'nothing late, nothing unsent: no warning');
  });
});

describe('errorKind', () => {
  for (const [err, kind] of /** @type {Array<[unknown, string]>} */ ([
    [{ name: 'TimeoutError' }, 'timeout'],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'timeout'],
    [{ code: 'UND_ERR_CONNECT_TIMEOUT' }, 'timeout'],
    [{ code: 'ECONNREFUSED' }, 'refused'],
    [{ cause: { code: 'ECONNREFUSED' } }, 'refused'],
    [{ code: 'ECONNRESET' }, 'reset'],
    [{ code: 'UND_ERR_SOCKET' }, 'reset'],
    [{ code: 'EAI_AGAIN' }, 'eai_again'],
    [{ name: 'Weird' }, 'weird'],
    [undefined, 'error'],
  ])) {
    it(`${JSON.stringify(err)} -> ${kind}`, () => assert.equal(errorKind(err), kind));
  }
});

// Issue 12 (friction): the progress line shows elapsed and remaining time (or requests).
describe('progress: elapsed and what is left', () => {
  it('counts down the duration, or the requests', () => {
    const base = /** @type {any} */ ({ durationMs: 60_000 });
    assert.equal(timeLeft(base, 10, 12_400), '12s elapsed, 48s left');
    assert.equal(timeLeft(base, 10, 61_000), '61s elapsed, 0s left');
    assert.equal(timeLeft(/** @type {any} */ ({ requests: 400 }), 150, 3_000), '3s elapsed, 250 requests left');
  });
});
