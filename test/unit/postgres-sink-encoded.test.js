// The PostgreSQL sink's pages of rows already encoded: `onWritten` tells the producer (the load
// generator's recorder) that a page's buffer may be filled again, so it must come exactly once,
// only after the page's write succeeded: never for a failed attempt, nor for a page dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createPostgresSink } from '../../exporters/postgres/sink/sink.js';

const log = pino({ level: 'silent' });
const NO_POOL = /** @type {import('pg').Pool} */ (/** @type {unknown} */ (undefined));

/** A page of `rows` encoded rows whose onWritten calls are noted in `calls`. @param {string[]} calls */
const page = (calls, name, rows = 10) => ({
  data: Buffer.from(name),
  rows,
  onWritten: () => calls.push(name),
});

describe('postgres sink, encoded pages', () => {
  it('calls onWritten once, after the write that succeeded, not after a failed attempt', async () => {
    /** @type {string[]} */
    const events = [];
    let attempts = 0;
    const sink = createPostgresSink({
      pool: NO_POOL,
      log,
      maxBuffered: Infinity,
      backoff: { retries: Infinity, baseDelayMs: 1, maxDelayMs: 1 },
      writePage: async ({ encoded }) => {
        attempts += 1;
        events.push(`write ${encoded?.data.toString()} (${attempts})`);
        if (attempts === 1) throw new Error('database unreachable');
        return { count: encoded?.rows ?? 0, records: [] };
      },
    });
    sink.writeEncoded('loadgen_request', page(events, 'a'));
    await sink.flush();
    assert.deepEqual(events, ['write a (1)'], 'a failed write does not free the page');
    assert.equal(sink.pending, 10);
    await sink.flush({ force: true });
    assert.deepEqual(events, ['write a (1)', 'write a (2)', 'a']);
    assert.equal(sink.written, 10);
    await sink.close();
    assert.deepEqual(events, ['write a (1)', 'write a (2)', 'a'], 'closing calls nothing again');
  });

  it('never calls onWritten for a page dropped while the database is down', async () => {
    /** @type {string[]} */
    const freed = [];
    const sink = createPostgresSink({
      pool: NO_POOL,
      log,
      maxBuffered: 15,
      backoff: { retries: Infinity, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      writePage: async () => {
        throw new Error('database unreachable');
      },
    });
    sink.writeEncoded('loadgen_request', page(freed, 'a'));
    await sink.flush();
    // 20 rows buffered against a bound of 15: the oldest page goes.
    sink.writeEncoded('loadgen_request', page(freed, 'b'));
    assert.equal(sink.dropped, 10);
    assert.equal(sink.pending, 10);
    assert.deepEqual(freed, []);
    await sink.close().catch(() => {});
    assert.deepEqual(freed, [], 'nothing was written, so no buffer is given back');
  });
});
