// Writes every load-generator request to PostgreSQL while the run goes on, through the same
// buffered sink as the collector's samples. Each request is encoded as a binary COPY tuple the
// moment it completes, into a page buffer (sized for a page of rows without errors; it grows for
// long errors): no object per request outlives it. A full page (or every second) goes to the
// sink, which writes up to `maxInFlight` pages at once while the next one fills, so a slow COPY
// does not pause sending; only when every slot is busy does the producer wait (counted).
// A crash loses at most the page being filled; memory stays flat however long the run. Large
// pages: PostgreSQL spends less CPU per row than on small ones (a cost per COPY transaction), on
// the same cores as the generator and the target (bench/loadgen.bench.js).

/**
 * Where a run's requests go, opened for the run and worker by the command that drives the load
 * (a PostgreSQL sink and the run's row encoder: exporters/postgres/sink/loadgen-rows.js openLoadgenRecording).
 * @typedef {object} Recording
 * @property {PageSink} sink
 * @property {RowEncoder} encoder
 *
 * Takes pages of encoded rows and writes up to its limit of them at once.
 * @typedef {object} PageSink
 * @property {(kind: 'loadgen_request', rows: import('../core/types.js').EncodedRows) => void} writeEncoded
 * @property {() => Promise<void>} flush starts writing what is buffered
 * @property {() => Promise<void>} room resolves once a write slot is free
 * @property {() => Promise<void>} close writes the rest and releases
 * @property {number} writesInFlight
 * @property {number} pending rows not written (after close: lost)
 * @property {number} written rows written
 * @property {Error | undefined} lastError
 *
 * Encodes one request as a binary COPY tuple of the run's rows.
 * @typedef {object} RowEncoder
 * @property {(error: string | null) => number} maxBytes the most bytes a row with this error takes
 * @property {number} cleaned rows so far whose text was cleaned
 * @property {(page: Buffer, at: number, correlationId: string, startedAtMs: number, durationMs: number,
 *   status: number, error: string | null) => number} write the row at `at`; returns the offset after it
 */

/**
 * @param {object} options
 * @param {Recording} options.recording
 * @param {number} [options.batchSize] rows per page
 * @param {number} [options.flushIntervalMs] a partly filled page is written after this long
 * @param {number} [options.maxInFlight] pages written at once before the producer waits
 * @param {() => void} [options.onWait] a page was full while every slot was busy
 */
export function createRecorder({ recording, batchSize = 10_000, flushIntervalMs = 1000, maxInFlight = 3, onWait }) {
  // The producer waits instead of dropping, so the buffer never holds more than the pages in flight.
  const { sink, encoder } = recording;
  /** The longest a row without an error can be. */
  const mostBytes = encoder.maxBytes(null);
  const pageBytes = batchSize * mostBytes;
  const pages = createPagePool(pageBytes, maxInFlight);
  let page = pages.take();
  let bytes = 0;
  let rows = 0;
  let waits = 0;
  /** The encoder's count of rows with cleaned text when the page began. */
  let cleanedBefore = 0;

  /** Hands the page to the sink; a promise when the producer must wait for a free slot. */
  function handOver() {
    const cleaned = encoder.cleaned - cleanedBefore;
    cleanedBefore = encoder.cleaned;
    page = writePage(sink, pages, page, { bytes, rows, cleaned });
    bytes = 0;
    rows = 0;
    void sink.flush();
    if (sink.writesInFlight < maxInFlight) return undefined;
    waits += 1;
    onWait?.();
    return sink.room();
  }

  const timer = setInterval(() => {
    if (rows > 0) void handOver();
  }, flushIntervalMs);
  timer.unref();

  return {
    /**
     * One completed request. Returns a promise only when the producer must wait (back-pressure).
     * @param {string} correlationId @param {number} startedAtMs since 1970, with fractions
     * @param {number} durationMs @param {number} status 0 when no response @param {string | null} error
     * @returns {Promise<void> | undefined}
     */
    record(correlationId, startedAtMs, durationMs, status, error) {
      const most = error === null ? mostBytes : encoder.maxBytes(error);
      if (page.length - bytes < most) page = grown(page, bytes, most);
      bytes = encoder.write(page, bytes, correlationId, startedAtMs, durationMs, status, error);
      rows += 1;
      return rows >= batchSize ? handOver() : undefined;
    },
    async close() {
      clearInterval(timer);
      if (rows > 0) handOver();
      await sink.close();
      if (sink.pending > 0) {
        const reason = sink.lastError?.message ?? 'unknown error';
        throw new Error(`loadgen: ${sink.pending} requests could not be written to PostgreSQL: ${reason}`);
      }
    },
    get written() {
      return sink.written;
    },
    /** Page buffers allocated: those filling or being written at once, not one per page. */
    get pagesAllocated() {
      return pages.allocated;
    },
    /** Times a full page found every write slot busy and the producer waited. */
    get waits() {
      return waits;
    },
  };
}

/**
 * Page buffers of one size, filled again once written: a new buffer per page would live long enough to
 * reach V8's old generation, its memory freed only by full collections that stall sending.
 * @param {number} pageBytes @param {number} maxInFlight
 */
function createPagePool(pageBytes, maxInFlight) {
  /** Page buffers written and free to fill again. @type {Buffer[]} */
  const spare = [];
  let allocated = 0;
  return {
    take() {
      const reused = spare.pop();
      if (reused) return reused;
      allocated += 1;
      return Buffer.allocUnsafe(pageBytes);
    },
    /**
     * A written page, kept to be filled again; a page grown for long errors is not: the spare pages stay
     * of the usual size.
     * @param {Buffer} written
     */
    giveBack(written) {
      // As many as can be on their way at once: `maxInFlight` being written and one waiting.
      if (written.length === pageBytes && spare.length <= maxInFlight) spare.push(written);
    },
    get allocated() {
      return allocated;
    },
  };
}

/**
 * Gives a page's rows to the sink and returns the buffer to fill next. A page the timer sends part-filled
 * goes as a copy of its own size: the page buffer stays here for the next rows, and pages waiting out an
 * outage hold only what they carry.
 * @param {PageSink} sink @param {ReturnType<typeof createPagePool>} pages
 * @param {Buffer} page @param {{ bytes: number, rows: number, cleaned: number }} filled
 */
function writePage(sink, pages, page, { bytes, rows, cleaned }) {
  const data = page.subarray(0, bytes);
  if (bytes < page.length / 4) {
    sink.writeEncoded('loadgen_request', { data: Buffer.from(data), rows, cleaned });
    return page;
  }
  sink.writeEncoded('loadgen_request', { data, rows, cleaned, onWritten: () => pages.giveBack(page) });
  return pages.take();
}

/**
 * A larger copy of a page whose room is too small for the next row (a long error text).
 * @param {Buffer} page @param {number} bytes filled so far @param {number} most the next row's longest encoding
 */
function grown(page, bytes, most) {
  const bigger = Buffer.allocUnsafe(2 * page.length + most);
  page.copy(bigger, 0, 0, bytes);
  return bigger;
}
