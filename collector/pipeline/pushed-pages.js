// The page path of a push source (the syslog drain): records it hands over are encoded for COPY at
// once (so that only one buffer per page waits, not an object per record the garbage collector
// would copy and promote), gathered into pages, and written through the same page writer as the
// paged sources (idempotent, retried with backoff), once the schema is in place. The source keeps
// its own bound and counts; it is told what was stored and how much waits.
import { DRAIN_BATCH_ROWS, DRAIN_FLUSH_INTERVAL_MS, DRAIN_SCHEMA_WAIT_MS } from '../../core/tunables.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/page-writer.js';
import { createPostgresSink } from '../../exporters/postgres/sink.js';

/** @typedef {import('../../core/types.js').PaasmonRecord} PaasmonRecord */
/** @typedef {import('../../core/types.js').EncodedRows} EncodedRows */

/**
 * The migrations' outcome, or 'pending' after `ms`.
 * @param {Promise<boolean>} schemaReady @param {number} ms
 * @returns {Promise<boolean | 'pending'>}
 */
async function schemaOutcome(schemaReady, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const pending = new Promise((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([schemaReady, /** @type {Promise<'pending'>} */ (pending)]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What the metrics need of a router request (the rest of it is encoded): kept per page until the
 * page is stored, and shown only when all its rows were new.
 * @param {PaasmonRecord} record @returns {PaasmonRecord}
 */
function observedPart(record) {
  if (record.kind !== 'router_request') return record;
  const { kind, appName, status, responseTimeMs } = record;
  return /** @type {PaasmonRecord} */ ({ kind, appName, status, responseTimeMs });
}

/**
 * The page being filled: the encoded rows of each write, joined into one page once it is full or
 * on the flush timer.
 * @param {boolean} observe keep what the metrics need of each record
 */
function createOpenPage(observe) {
  /** @type {Buffer[]} */
  let chunks = [];
  /** @type {PaasmonRecord[]} */
  let observed = [];
  let rows = 0;
  let cleaned = 0;
  /** @type {PaasmonRecord['kind'] | undefined} */
  let kind;
  return {
    get rows() {
      return rows;
    },
    get kind() {
      return kind;
    },
    /** @param {PaasmonRecord[]} records all of one kind */
    add(records) {
      const encoded = encodeRecords(records[0].kind, records, records.length);
      kind = records[0].kind;
      chunks.push(encoded.data);
      rows += encoded.rows;
      cleaned += encoded.cleaned ?? 0;
      if (observe) for (const record of records) observed.push(observedPart(record));
    },
    /** The page, and the records to observe once it is stored; the open page is empty again. */
    take() {
      /** @type {EncodedRows} */
      const encoded = { data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), rows, cleaned };
      const page = { kind: /** @type {PaasmonRecord['kind']} */ (kind), encoded, observed };
      chunks = [];
      observed = [];
      rows = 0;
      cleaned = 0;
      kind = undefined;
      return page;
    },
  };
}

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {Promise<boolean>} [options.schemaReady] writes wait for the migrations
 * @param {import('pino').Logger} options.log
 * @param {import('../../core/retry.js').BackoffOptions} [options.backoff]
 * @returns {import('../../core/types.js').OpenIntake}
 */
export function pushedPages({ pool, schemaReady, log, backoff }) {
  return ({ maxBuffered, observe, onStored, onPending }) => {
    let schemaInPlace = false;
    const writeRouterPage = createPageWriter(pool);
    /** What to observe of each page the sink holds, until it is stored. */
    const observations = /** @type {WeakMap<EncodedRows, PaasmonRecord[]>} */ (new WeakMap());
    const open = createOpenPage(observe);
    const sink = createPostgresSink({
      pool,
      log,
      maxBuffered,
      batchRows: DRAIN_BATCH_ROWS,
      backoff,
      writePage: async (page) => {
        const schema = schemaInPlace || !schemaReady ? true : await schemaOutcome(schemaReady, DRAIN_SCHEMA_WAIT_MS);
        if (schema === 'pending') throw new Error('the schema is not in place yet (migrations running or retrying)');
        if (!schema) throw new Error('shutting down before the schema was ready');
        const inserted = await writeRouterPage({ ...page, countOnly: !observe, observedByCaller: observe });
        const rows = page.encoded?.rows ?? page.records.length;
        const observed = page.encoded && observations.get(page.encoded);
        if (page.encoded) observations.delete(page.encoded);
        // All rows new: the page's own records are the ones inserted; else the writer read them back.
        onStored(rows, observed && inserted.count === rows ? { ...inserted, records: observed } : inserted);
        return inserted;
      },
      onChange: ({ pending }) => onPending(pending + open.rows),
    });
    /** The open page goes to the sink's buffer. */
    const seal = () => {
      if (open.rows === 0) return;
      const { kind, encoded, observed } = open.take();
      if (observe) observations.set(encoded, observed);
      sink.writeEncoded(kind, encoded);
    };
    /** @type {import('../../core/types.js').Intake['flush']} */
    const flush = (options) => {
      seal();
      return sink.flush(options);
    };
    const timer = setInterval(() => void flush(), DRAIN_FLUSH_INTERVAL_MS);
    timer.unref();
    // Written at once, not after the backoff the writes that failed waiting for it ran up.
    void schemaReady?.then((ok) => {
      schemaInPlace = ok;
      if (ok) void flush({ force: true });
    });
    return {
      /** @param {PaasmonRecord[]} records */
      write(records) {
        let from = 0;
        // Runs of one kind; a page holds one kind and at most DRAIN_BATCH_ROWS rows (give or take a write).
        for (let i = 1; i <= records.length; i++) {
          if (i < records.length && records[i].kind === records[from].kind) continue;
          if (open.kind !== undefined && open.kind !== records[from].kind) seal();
          open.add(records.slice(from, i));
          if (open.rows >= DRAIN_BATCH_ROWS) seal();
          from = i;
        }
        onPending(sink.pending + open.rows);
      },
      flush,
      async close() {
        clearInterval(timer);
        seal();
        await sink.close();
      },
      get pending() {
        return sink.pending + open.rows;
      },
      get dropped() {
        return sink.dropped;
      },
      get lastError() {
        return sink.lastError;
      },
    };
  };
}
