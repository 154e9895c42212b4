// The correlation counts after stored router rows: at once for a scheduled run, at most once per interval
// for pushed pages, the last of them never left out, nothing after close.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createCorrelationRefresh } from '../../collector/pipeline/source-jobs.js';

const MIN_MS = 200;

/** A refresh over a database of no recent run: counts the passes and the times they were shown. */
function counted() {
  const passes = { queries: 0, shown: /** @type {number[]} */ ([]) };
  const pool = /** @type {any} */ ({
    query: async () => {
      passes.queries += 1;
      return { rows: [] };
    },
  });
  const prometheus = { setCorrelationCounts: () => void passes.shown.push(Date.now()) };
  const refresh = createCorrelationRefresh({ pool, prometheus, log: pino({ level: 'silent' }), minIntervalMs: MIN_MS });
  return { passes, refresh };
}

describe('correlation refresh', () => {
  it('counts pushed pages at once, then at most once per interval, the last burst included', async () => {
    const { passes, refresh } = counted();
    for (let i = 0; i < 100; i++) refresh.soon();
    await sleep(20);
    assert.equal(passes.shown.length, 1, 'the first page at once, the 99 with it in the same pass');
    for (let i = 0; i < 100; i++) refresh.soon();
    await sleep(MIN_MS / 2);
    assert.equal(passes.shown.length, 1, 'not again within the interval');
    await sleep(MIN_MS);
    assert.equal(passes.shown.length, 2, 'the pages of the interval counted once it is over');
    assert.ok(passes.shown[1] - passes.shown[0] >= MIN_MS - 5, `${passes.shown[1] - passes.shown[0]} ms apart`);
    await sleep(MIN_MS * 1.5);
    assert.equal(passes.shown.length, 2, 'no page, no pass');
    await refresh.close();
  });

  it('counts a scheduled run at once whatever the interval, and nothing pushed after close', async () => {
    const { passes, refresh } = counted();
    refresh.soon();
    await sleep(20);
    await refresh.now();
    await refresh.now();
    assert.equal(passes.shown.length, 3);
    refresh.soon();
    await refresh.close();
    await sleep(MIN_MS * 1.5);
    assert.equal(passes.shown.length, 3, 'the pending pass was dropped with the close');
    refresh.soon();
    await sleep(20);
    assert.equal(passes.queries, 3);
  });
});
