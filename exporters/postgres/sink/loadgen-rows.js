// The load generator's specialised encoder of loadgen_requests rows: straight from the generator's
// numbers into a page buffer, the same bytes the generic encoder (copy-binary.js, driven by the
// table spec) writes for the same records (test/unit/loadgen-rows.test.js holds them equal).
import { cleanedText } from '../rows/clean-text.js';
import { POSTGRES_EPOCH_MS, writeInt64 } from '../rows/copy-binary.js';
import { tableOf } from '../rows/tables.js';
import { createPostgresSink } from './sink.js';

const LOADGEN_REQUESTS = tableOf('loadgen_request');

/** Characters of a correlation id as the load generator draws it (a UUID). */
const CORRELATION_ID_CHARS = 36;
/**
 * Bytes of a loadgen_requests row besides its run, worker and error text: the id, time, duration
 * and status, each after its 4-byte length, and the error's length word.
 */
const LOADGEN_ROW_BYTES = 4 + CORRELATION_ID_CHARS + (4 + 8) + (4 + 8) + (4 + 4) + 4;
/** @param {Buffer} page @param {number} at @param {Uint8Array} bytes @returns {number} the offset after them */
function writeBytes(page, at, bytes) {
  for (let i = 0; i < bytes.length; i++) page[at + i] = bytes[i];
  return at + bytes.length;
}

/**
 * loadgen_requests rows straight from the generator's numbers into a page buffer, in
 * LOADGEN_REQUESTS column order, as the tuples of a binary COPY: the generic column mapper (a
 * record object, a Date, an escape pass per value) cost the load generator CPU per request; a
 * text line still cost digit loops here, and PostgreSQL CPU per row to parse the text (timestamps
 * above all; bench/loadgen.bench.js). Times are kept to the
 * microsecond (what PostgreSQL keeps), durations in ms to the nanosecond, as the text rows were.
 * @param {{ runId: number, worker: string }} run
 */
export function loadgenRowEncoder({ runId, worker }) {
  // The field count and run_id, the same in every row of the run; then the worker, last.
  const head = Buffer.alloc(2 + 4 + 8);
  head.writeInt16BE(LOADGEN_REQUESTS.columns.length, 0);
  head.writeInt32BE(8, 2);
  writeInt64(head, 6, runId);
  // Text cleaned as clean-text.js says: the worker once, an error (rare) as it comes.
  const cleanWorker = cleanedText(worker);
  const workerBytes = Buffer.from(cleanWorker ?? worker, 'utf8');
  /** Rows written with cleaned text. */
  let cleaned = 0;
  // The worker, then NULL for the columns only imports fill (tool, method, url, bytes).
  const importedOnly = LOADGEN_REQUESTS.columns.length - 7;
  const tail = Buffer.alloc(4 + workerBytes.length + 4 * importedOnly, 0xff);
  tail.writeInt32BE(workerBytes.length, 0);
  workerBytes.copy(tail, 4);
  return {
    /** @param {string | null} error @returns {number} bytes the row takes at most */
    maxBytes: (error) =>
      head.length +
      LOADGEN_ROW_BYTES +
      (error === null ? 0 : Buffer.byteLength(cleanedText(error) ?? error)) +
      tail.length,
    /** Rows written so far whose worker or error text was cleaned. */
    get cleaned() {
      return cleaned;
    },
    /**
     * @param {Buffer} page with room for maxBytes(error) at `at` @param {number} at
     * @param {string} correlationId lower-case UUID @param {number} startedAtMs since 1970, with fractions
     * @param {number} durationMs >= 0 @param {number} status @param {string | null} error
     * @returns {number} the offset after the row
     */
    write(page, at, correlationId, startedAtMs, durationMs, status, error) {
      // maxBytes counts on it; any other id would be cut short or overrun the page.
      if (correlationId.length !== CORRELATION_ID_CHARS) throw new Error(`not a UUID: ${correlationId}`);
      let o = writeBytes(page, at, head);
      page.writeInt32BE(CORRELATION_ID_CHARS, o);
      page.write(correlationId, o + 4, CORRELATION_ID_CHARS, 'latin1');
      o += 4 + CORRELATION_ID_CHARS;
      page.writeInt32BE(8, o);
      writeInt64(page, o + 4, Math.round(startedAtMs * 1000) - POSTGRES_EPOCH_MS * 1000);
      o += 12;
      page.writeInt32BE(8, o);
      page.writeDoubleBE(Math.round(durationMs * 1e6) / 1e6, o + 4);
      o += 12;
      page.writeInt32BE(4, o);
      page.writeInt32BE(status, o + 4);
      o += 8;
      const cleanError = error === null ? undefined : cleanedText(error);
      if (cleanWorker !== undefined || cleanError !== undefined) cleaned += 1;
      if (error === null) {
        page.writeInt32BE(-1, o); // NULL
        o += 4;
      } else {
        const errorBytes = page.write(cleanError ?? error, o + 4, 'utf8');
        page.writeInt32BE(errorBytes, o);
        o += 4 + errorBytes;
      }
      return writeBytes(page, o, tail);
    },
  };
}

/**
 * Where the load generator records a run (loadgen/recorder.js Recording): a buffered sink that
 * writes up to `maxInFlight` pages of `batchRows` at once and never drops (the producer waits),
 * and the run's row encoder.
 * @param {import('pg').Pool} pool @param {import('pino').Logger} log
 * @param {{ runId: number, worker: string, batchRows?: number, maxInFlight?: number,
 *   metrics?: import('./page-writer.js').PostgresMetrics }} run metrics: counted into as pages are stored
 */
export function openLoadgenRecording(pool, log, { runId, worker, batchRows = 10_000, maxInFlight = 3, metrics }) {
  const sink = createPostgresSink({ pool, log, maxBuffered: Infinity, batchRows, maxInFlight, metrics });
  return { sink, encoder: loadgenRowEncoder({ runId, worker }) };
}
