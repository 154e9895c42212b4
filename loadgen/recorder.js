// Writes every load-generator request to PostgreSQL while the run goes on, in COPY batches: a
// crash loses at most the batch being filled, and memory stays flat however long the run.
import { LOADGEN_REQUESTS, copyLine, copyNew } from '../exporters/postgres.js';

/**
 * @param {{ pool: import('pg').Pool, runId: number, worker: string, batchSize?: number, flushIntervalMs?: number }} options
 */
export function createRecorder({ pool, runId, worker, batchSize = 2000, flushIntervalMs = 1000 }) {
  /** @type {string[]} */
  let batch = [];
  /** @type {Promise<void>} */
  let writing = Promise.resolve();
  let written = 0;
  /** @type {Error | undefined} */
  let failed;

  const flush = () => {
    if (!batch.length) return writing;
    const lines = batch;
    batch = [];
    writing = writing.then(async () => {
      // Every id is fresh (128 random bits), so no row can exist yet: a plain COPY.
      await copyNew(pool, LOADGEN_REQUESTS, lines);
      written += lines.length;
    }).catch((err) => { failed ??= err; });
    return writing;
  };
  const timer = setInterval(() => { void flush(); }, flushIntervalMs);
  timer.unref();

  return {
    /** @param {import('./generate.js').LoadgenRequest} request */
    async record(request) {
      batch.push(copyLine(LOADGEN_REQUESTS, { ...request, runId, worker }));
      // Waiting for the previous write when a batch is full keeps memory bounded.
      if (batch.length >= batchSize) await flush();
    },
    async close() {
      clearInterval(timer);
      await flush();
      if (failed) throw new Error(`loadgen: writing requests to PostgreSQL failed: ${failed.message}`, { cause: failed });
    },
    get written() { return written; },
  };
}
