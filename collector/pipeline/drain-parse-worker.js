// The drain's parse thread (started by drain-parse.js): each batch of messages in, its parsed and
// encoded rows out, in order; buffers are handed over, not copied, and the batch's own buffer goes
// back to be filled again.
import { parentPort, workerData } from 'node:worker_threads';
import { parseBatch } from './drain-parse.js';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
port.on('message', (/** @type {import('./drain-parse.js').MessageBatch} */ batch) => {
  const parsed = parseBatch(batch, workerData);
  const input = batch.data.buffer;
  const { observed } = parsed;
  const columns = observed ? [observed.name.buffer, observed.status.buffer, observed.responseTimeMs.buffer] : [];
  const buffers = /** @type {ArrayBuffer[]} */ ([input, parsed.encoded.data.buffer, ...columns]);
  port.postMessage({ ...parsed, input }, buffers);
});
