// Writes every load-generator request to PostgreSQL while the run goes on, through the same
// buffered sink as the collector's samples: batches of `batchSize` or every second, so a crash
// loses at most the batch being filled, and memory stays flat however long the run.
import { createPostgresSink } from '../exporters/postgres/sink.js';

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {import('pino').Logger} options.log
 * @param {number} options.runId
 * @param {string} options.worker
 * @param {number} [options.batchSize]
 * @param {number} [options.flushIntervalMs]
 */
export function createRecorder({ pool, log, runId, worker, batchSize = 2000, flushIntervalMs = 1000 }) {
  // The producer waits instead of dropping, so the buffer never holds much more than one batch.
  const sink = createPostgresSink({ pool, log, maxBuffered: Infinity, batchRows: batchSize, flushIntervalMs });
  return {
    /** @param {import('../core/types.js').LoadgenRequest} request */
    async record(request) {
      request.runId = runId;
      request.worker = worker;
      sink.write([request]);
      // A full batch waits for the write before it (one batch in flight, one filling).
      if (sink.pending - sink.writing >= batchSize) await sink.flush({ wait: true });
    },
    async close() {
      await sink.close();
      if (sink.pending > 0) {
        const reason = sink.lastError?.message ?? 'unknown error';
        throw new Error(`loadgen: ${sink.pending} requests could not be written to PostgreSQL: ${reason}`);
      }
    },
    get written() {
      return sink.written;
    },
  };
}
