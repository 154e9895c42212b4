// The page path of a push source (the syslog drain): records it hands over are encoded for COPY at
// once (so that only one buffer per page waits, not an object per record the garbage collector
// would copy and promote), gathered into pages, and written through the same page writer as the
// paged sources (idempotent, retried with backoff), once the schema is in place. The source keeps
// its own bound and counts; it is told what was stored and how much waits.
import { DRAIN_BATCH_ROWS, DRAIN_FLUSH_INTERVAL_MS, DRAIN_SCHEMA_WAIT_MS } from '../../core/tunables.js';
import { createPageEncoder, createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
import { createPostgresSink } from '../../exporters/postgres/sink/sink.js';
import { createRouterRequestTally, tallyRouterRequests } from '../../core/router-request-tally.js';

/** Pages written at once: the next page's COPY overlaps the last one's commit and the parsing. */
const DRAIN_PAGES_IN_FLIGHT = 2;

/** @typedef {import('../../core/types.js').PaasmonRecord} PaasmonRecord */
/** @typedef {import('../../core/types.js').EncodedRows} EncodedRows */
/** @typedef {import('../../core/router-request-tally.js').RouterRequestTally} RouterRequestTally */

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
 * Writes wait for the migrations a while, then fail (and are retried with backoff).
 * @param {Promise<boolean> | undefined} schemaReady @param {() => void} onReady once they succeeded
 */
function schemaGate(schemaReady, onReady) {
  let inPlace = !schemaReady;
  void schemaReady?.then((ok) => {
    inPlace = ok;
    if (ok) onReady();
  });
  return {
    async inPlace() {
      const schema = inPlace || !schemaReady ? true : await schemaOutcome(schemaReady, DRAIN_SCHEMA_WAIT_MS);
      if (schema === 'pending') throw new Error('the schema is not in place yet (migrations running or retrying)');
      if (!schema) throw new Error('shutting down before the schema was ready');
    },
  };
}

/**
 * `first`, then the rest of `iterator`, all of first's kind, each also shown to `see` (if given) as it passes.
 * @param {PaasmonRecord} first @param {Iterator<PaasmonRecord>} iterator
 * @param {((record: PaasmonRecord) => void) | undefined} see
 * @returns {Generator<PaasmonRecord>}
 */
function* oneKind(first, iterator, see) {
  see?.(first);
  yield first;
  for (let next = iterator.next(); !next.done; next = iterator.next()) {
    if (next.value.kind !== first.kind) throw new Error(`intake: a ${next.value.kind} among ${first.kind} records`);
    see?.(next.value);
    yield next.value;
  }
}

/**
 * The page being filled: the rows of every write encoded into one buffer, handed over once it is
 * full or on the flush timer.
 * @param {boolean} observe tally what the metrics need of each router request
 */
function createOpenPage(observe) {
  /** @type {ReturnType<typeof createPageEncoder> | undefined} */
  let encoder;
  let observed = createRouterRequestTally();
  /** @param {PaasmonRecord} record */
  const see = (record) => {
    if (record.kind === 'router_request') observed.add(record);
  };
  /** @type {PaasmonRecord['kind'] | undefined} */
  let kind;
  return {
    get rows() {
      return encoder?.rows ?? 0;
    },
    get kind() {
      return kind;
    },
    /**
     * Encodes records as they come (a generator's never all exist at once).
     * @param {PaasmonRecord} first @param {Iterator<PaasmonRecord>} rest the records after it, all of first's kind
     * @param {(error: Error) => void} onUnusable a record left out: a value of it cannot be encoded
     */
    add(first, rest, onUnusable) {
      kind = first.kind;
      encoder ??= createPageEncoder(first.kind, DRAIN_BATCH_ROWS);
      if (!observe) return encoder.add(oneKind(first, rest, undefined), (_, error) => onUnusable(error));
      const tally = observed;
      return encoder.add(oneKind(first, rest, see), (record, error) => {
        // The record left out was the last one shown: it is not observed either.
        if (/** @type {PaasmonRecord} */ (record).kind === 'router_request') {
          tally.removeLast(/** @type {import('../../core/types.js').RouterRequest} */ (record));
        }
        onUnusable(error);
      });
    },
    /** The page, and the records to observe once it is stored; the open page is empty again. */
    take() {
      const page = {
        kind: /** @type {PaasmonRecord['kind']} */ (kind),
        encoded: /** @type {ReturnType<typeof createPageEncoder>} */ (encoder).done(),
        observed,
      };
      encoder = undefined;
      observed = createRouterRequestTally();
      kind = undefined;
      return page;
    },
  };
}

/**
 * What the metrics see of a stored page: all rows new, the tally kept of it; else the rows the writer read back
 * (nothing when the metrics see nothing).
 * @param {WeakMap<EncodedRows, RouterRequestTally> | undefined} kept by page
 * @param {import('../../core/types.js').Page} page @param {import('../../core/types.js').Inserted} inserted
 */
function observed(kept, page, inserted) {
  if (!kept) return undefined;
  const tally = page.encoded && kept.get(page.encoded);
  return tally && inserted.count === page.encoded?.rows ? tally : tallyRouterRequests(inserted.records);
}

/**
 * @param {object} options
 * @param {import('pg').Pool} options.pool
 * @param {Promise<boolean>} [options.schemaReady] writes wait for the migrations
 * @param {import('pino').Logger} options.log
 * @param {import('../../core/retry.js').BackoffOptions} [options.backoff]
 * @param {() => void} [options.afterStored] after a page that stored new router requests
 * @param {import('../../exporters/postgres/sink/page-writer.js').PostgresMetrics} [options.metrics] counted into
 * @returns {import('../../core/types.js').OpenIntake}
 */
export function pushedPages({ pool, schemaReady, log, backoff, afterStored, metrics }) {
  return ({ maxBuffered, observe, onStored, onPending }) => {
    const writeRouterPage = createPageWriter(pool, metrics);
    /** What to observe of each page the sink holds, until it is stored (and the page let go). */
    const observations = observe ? /** @type {WeakMap<EncodedRows, RouterRequestTally>} */ (new WeakMap()) : undefined;
    const open = createOpenPage(observe);
    const sink = createPostgresSink({
      pool,
      log,
      maxBuffered,
      batchRows: DRAIN_BATCH_ROWS,
      maxInFlight: DRAIN_PAGES_IN_FLIGHT,
      backoff,
      writePage: async (page) => {
        await schema.inPlace();
        const inserted = await writeRouterPage({ ...page, countOnly: !observe, observedByCaller: observe });
        onStored(page.encoded?.rows ?? page.records.length, inserted, observed(observations, page, inserted));
        if (inserted.count > 0 && page.kind === 'router_request') afterStored?.();
        // What came in during this write is the next page, unless another write is in flight (see flush).
        if (sink.writesInFlight <= 1) seal();
        return inserted;
      },
      onChange: ({ pending }) => onPending(pending + open.rows),
    });
    /** The open page goes to the sink's buffer. */
    const seal = () => {
      if (open.rows === 0) return;
      const { kind, encoded, observed } = open.take();
      observations?.set(encoded, observed);
      sink.writeEncoded(kind, encoded);
    };
    /**
     * While a page is written, the open one keeps filling until the last write in flight ends or it is full (the
     * second in flight): sealing it on every flush, or at the end of each of two writes, makes small pages.
     * @type {import('../../core/types.js').Intake['flush']}
     */
    const flush = (options) => {
      if (options?.force || sink.writesInFlight === 0) seal();
      return sink.flush(options);
    };
    const timer = setInterval(() => void flush(), DRAIN_FLUSH_INTERVAL_MS);
    timer.unref();
    // Written at once, not after the backoff the writes that failed waiting for it ran up.
    const schema = schemaGate(schemaReady, () => void flush({ force: true }));
    return {
      /**
       * Encodes the records as they come; a page holds DRAIN_BATCH_ROWS rows, give or take a write.
       * @type {import('../../core/types.js').Intake['write']}
       */
      write(records, onUnusable) {
        const iterator = records[Symbol.iterator]();
        const first = iterator.next();
        if (first.done) return 0;
        const { kind } = first.value;
        if (open.kind !== undefined && open.kind !== kind) seal();
        const written = open.add(first.value, iterator, onUnusable);
        if (open.rows >= DRAIN_BATCH_ROWS) seal();
        onPending(sink.pending + open.rows);
        return written;
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
