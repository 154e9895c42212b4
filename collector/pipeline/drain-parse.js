// The drain's parse on a second thread: a batch of messages (their bytes and bounds) becomes router
// requests encoded for COPY, what the metrics need of each, and the count of every message left out
// by reason, in a worker thread (drain-parse-worker.js) running the same functions as the file
// ingest, so that TLS/HTTP intake on the main thread and the parse use both cores. Batches are
// answered in order; the caller bounds how many are in flight. Should the worker fail, the error
// is logged in one line and the batches in flight, and all after them, are parsed on the main thread.
import { Worker } from 'node:worker_threads';
import { createPageEncoder } from '../../exporters/postgres/page-writer.js';
import { messagesOf } from '../sources/syslog-drain/rfc5424.js';
import { routerRequestsOf } from '../sources/syslog-drain/records.js';

/** Messages sent to the worker at once at most (more are gathered in one turn only under a burst). */
const GATHER_MESSAGES = 2000;
/** The size of a batch's buffer, at least; the worker hands it back with the answer, to be used again. */
const SPARE_BYTES = 2 * 1024 * 1024;
/** Rejected messages shown per batch at debug level. */
const SAMPLES_PER_BATCH = 3;

/**
 * @typedef {object} MessageBatch
 * @property {Uint8Array} data the messages' bytes
 * @property {number[] | Int32Array} bounds the start and end of each message in `data`, one after the other
 *
 * @typedef {object} ParsedBatch
 * @property {import('../../core/types.js').EncodedRows} encoded the router requests, encoded for COPY
 * @property {{ names: string[], name: Int32Array, status: Float64Array, responseTimeMs: Float64Array } | undefined}
 *   observed what the metrics need of each row (an index into `names`; NaN for null), when asked
 * @property {{ outcome: 'rejected' | 'dropped', reason: string, n: number }[]} skipped messages left out, by reason
 * @property {{ reason: string, message: string }[]} samples some rejected messages (debug)
 * @property {string[]} unusable why each row left out at encoding was (a value its column cannot hold)
 *
 * @typedef {{ data: Uint8Array, bounds: number[] | Int32Array, from: number, to: number }} MessageSlice messages
 *   from..to (indexes) of a buffer
 * @typedef {ReturnType<typeof withObserved>} Parsed
 *
 * @typedef {{ correlationField?: string, observe: boolean }} ParseOptions
 */

/**
 * Parses and encodes one batch: the work of the worker thread, and of the main thread once it failed.
 * The rows go into a buffer of their own (handed to the main thread whole).
 * @param {MessageBatch} batch @param {ParseOptions} options @returns {ParsedBatch}
 */
export function parseBatch({ data, bounds }, { correlationField, observe }) {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const count = bounds.length / 2;
  /** @type {Map<string, number>} */
  const skips = new Map();
  /** @type {ParsedBatch['samples']} */
  const samples = [];
  /** @type {string[]} */
  const unusable = [];
  const onSkip = (/** @type {'rejected' | 'dropped'} */ outcome, /** @type {string} */ reason, text = '') => {
    const key = `${outcome}\n${reason}`;
    skips.set(key, (skips.get(key) ?? 0) + 1);
    if (outcome === 'rejected' && samples.length < SAMPLES_PER_BATCH)
      samples.push({ reason, message: text.slice(0, 300) });
  };
  const columns = observe ? observedColumns(count) : undefined;
  const encoder = createPageEncoder('router_request', count);
  const records = routerRequestsOf(messagesOf(bytes, /** @type {number[]} */ (bounds)), { correlationField, onSkip });
  encoder.add(columns ? columns.tap(records) : records, (_, error) => {
    columns?.unsee();
    unusable.push(error.message);
  });
  const skipped = [...skips].map(([key, n]) => {
    const [outcome, reason] = key.split('\n');
    return { outcome: /** @type {'rejected' | 'dropped'} */ (outcome), reason, n };
  });
  return { encoded: encoder.done(), observed: columns?.done(), skipped, samples, unusable };
}

/** What the metrics need of each router request, in columns (one string per app name). @param {number} count */
function observedColumns(count) {
  /** @type {Map<string | null, number>} */
  const index = new Map();
  const name = new Int32Array(count);
  const status = new Float64Array(count);
  const responseTimeMs = new Float64Array(count);
  let rows = 0;
  return {
    /** @param {Iterable<import('../../core/types.js').RouterRequest>} records */
    *tap(records) {
      for (const record of records) {
        let i = index.get(record.appName);
        if (i === undefined) index.set(record.appName, (i = index.size));
        name[rows] = i;
        status[rows] = record.status ?? NaN;
        responseTimeMs[rows] = record.responseTimeMs ?? NaN;
        rows += 1;
        yield record;
      }
    },
    /** The row last shown was left out. */
    unsee: () => void (rows -= 1),
    done: () => ({
      names: [...index.keys()].map((n) => n ?? '\0'),
      name: name.subarray(0, rows),
      status: status.subarray(0, rows),
      responseTimeMs: responseTimeMs.subarray(0, rows),
    }),
  };
}

/**
 * The records the metrics observe, from a batch's columns.
 * @param {NonNullable<ParsedBatch['observed']>} observed
 * @returns {import('../../core/types.js').PaasmonRecord[]}
 */
export function observedRecords({ names, name, status, responseTimeMs }) {
  const orNull = (/** @type {number} */ value) => (Number.isNaN(value) ? null : value);
  return Array.from(
    name,
    (i, row) =>
      /** @type {import('../../core/types.js').PaasmonRecord} */ ({
        kind: 'router_request',
        appName: names[i] === '\0' ? null : names[i],
        status: orNull(status[row]),
        responseTimeMs: orNull(responseTimeMs[row]),
      }),
  );
}

/** A parsed batch with the records the metrics observe made on demand. @param {ParsedBatch} parsed */
function withObserved(parsed) {
  const { observed } = parsed;
  return { ...parsed, observeRows: observed && (() => observedRecords(observed)) };
}

/**
 * Slices of messages (each its buffer, bounds and range) copied into one buffer, one of `spare` if one is large
 * enough: the buffers go to the worker and come back, so that neither thread allocates one per batch.
 * @param {MessageSlice[]} slices @param {number} count their messages in all @param {ArrayBuffer[]} [spare]
 * @returns {MessageBatch}
 */
export function joinSlices(slices, count, spare = []) {
  let size = 0;
  for (const { bounds, from, to } of slices) size += bounds[2 * to - 1] - bounds[2 * from];
  const reused = spare.findIndex((buffer) => buffer.byteLength >= size);
  const buffer = reused >= 0 ? spare.splice(reused, 1)[0] : new ArrayBuffer(Math.max(size, SPARE_BYTES));
  const data = new Uint8Array(buffer, 0, size);
  const bounds = new Int32Array(2 * count);
  let at = 0;
  let i = 0;
  for (const slice of slices) {
    const start = slice.bounds[2 * slice.from];
    data.set(slice.data.subarray(start, slice.bounds[2 * slice.to - 1]), at);
    for (let j = 2 * slice.from; j < 2 * slice.to; j++) bounds[i++] = slice.bounds[j] - start + at;
    at += slice.bounds[2 * slice.to - 1] - start;
  }
  return { data, bounds };
}

/**
 * Starts the worker thread. Slices handed over in one turn of the event loop go to it as one batch
 * (or sooner, past GATHER_MESSAGES); `onParsed` is told each batch's result, in order.
 * @param {ParseOptions & { log: import('pino').Logger, onParsed: (parsed: Parsed, messages: number) => void,
 *   workerUrl?: URL }} options workerUrl: tests
 */
export function openDrainParser({ correlationField, observe, log, onParsed, workerUrl }) {
  const options = { correlationField, observe };
  /** The parse here, once the worker failed. @param {MessageBatch} batch */
  const parseHere = (batch) => parseBatch(batch, options);
  /** Batches sent and not answered yet, oldest first. @type {{ batch: MessageBatch, messages: number }[]} */
  const waiting = [];
  /** @type {MessageSlice[]} */
  let gathered = [];
  let gatheredMessages = 0;
  let failed = false;
  let closing = false;
  /** @type {(() => void) | undefined} */
  let whenAnswered;
  const worker = new Worker(workerUrl ?? new URL('./drain-parse-worker.js', import.meta.url), {
    workerData: options,
    resourceLimits: { maxOldGenerationSizeMb: 32 },
  });
  // It never keeps the process alive by itself: close() ends it with the drain.
  worker.unref();
  /** @param {ParsedBatch} parsed @param {number} messages */
  const answer = (parsed, messages) => {
    onParsed(withObserved(parsed), messages);
    if (waiting.length === 0) whenAnswered?.();
  };
  /** Batch buffers back from the worker. @type {ArrayBuffer[]} */
  const spare = [];
  worker.on('message', (/** @type {ParsedBatch & { input: ArrayBuffer }} */ parsed) => {
    if (spare.length < 2) spare.push(parsed.input);
    const { data } = parsed.encoded;
    parsed.encoded.data = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const sent = waiting.shift();
    if (sent) answer(parsed, sent.messages);
  });
  /** The worker is gone: what it had not answered is parsed here. @param {string} why */
  const fail = (why) => {
    if (failed) return;
    failed = true;
    const unanswered = waiting.splice(0);
    if (closing && unanswered.length === 0) return;
    log.error(`drain: the parse thread stopped (${why}); parsing on the main thread`);
    for (const { batch, messages } of unanswered) answer(parseHere(batch), messages);
  };
  worker.on('error', (err) => fail(err?.message ?? String(err)));
  worker.on('exit', (code) => fail(`exit code ${code}`));
  const send = () => {
    if (gatheredMessages === 0) return;
    const messages = gatheredMessages;
    const batch = joinSlices(gathered, messages, spare);
    gathered = [];
    gatheredMessages = 0;
    if (failed) return answer(parseHere(batch), messages);
    waiting.push({ batch, messages });
    worker.postMessage(batch, [/** @type {ArrayBuffer} */ (batch.data.buffer)]);
  };
  return {
    /** Hands messages over; they are parsed soon after. @param {MessageSlice} slice */
    parse(slice) {
      if (gatheredMessages === 0) setImmediate(send);
      gathered.push(slice);
      gatheredMessages += slice.to - slice.from;
      if (gatheredMessages >= GATHER_MESSAGES) send();
    },
    /** Parses what was handed over, waits for the answers, then stops the worker. */
    async close() {
      closing = true;
      send();
      if (waiting.length > 0) await new Promise((resolve) => (whenAnswered = () => resolve(undefined)));
      await worker.terminate();
    },
  };
}

/** @typedef {ReturnType<typeof openDrainParser>} DrainParser */
