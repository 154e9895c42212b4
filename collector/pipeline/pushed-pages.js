// The page path of a push source (the syslog drain): records it hands over are buffered and
// written as pages of COPY through the same page writer as the paged sources (idempotent, retried
// with backoff), once the schema is in place. The source keeps its own bound and counts; it is told
// what was stored and how much waits.
import { DRAIN_BATCH_ROWS, DRAIN_FLUSH_INTERVAL_MS, DRAIN_SCHEMA_WAIT_MS } from '../../core/tunables.js';
import { createPageWriter } from '../../exporters/postgres/page-writer.js';
import { createPostgresSink } from '../../exporters/postgres/sink.js';

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
    const sink = createPostgresSink({
      pool,
      log,
      maxBuffered,
      batchRows: DRAIN_BATCH_ROWS,
      flushIntervalMs: DRAIN_FLUSH_INTERVAL_MS,
      backoff,
      writePage: async (page) => {
        const schema = schemaInPlace || !schemaReady ? true : await schemaOutcome(schemaReady, DRAIN_SCHEMA_WAIT_MS);
        if (schema === 'pending') throw new Error('the schema is not in place yet (migrations running or retrying)');
        if (!schema) throw new Error('shutting down before the schema was ready');
        const inserted = await writeRouterPage({ ...page, countOnly: !observe });
        onStored(page.records.length, inserted);
        return inserted;
      },
      onChange: ({ pending }) => onPending(pending),
    });
    // Written at once, not after the backoff the writes that failed waiting for it ran up.
    void schemaReady?.then((ok) => {
      schemaInPlace = ok;
      if (ok) void sink.flush({ force: true });
    });
    return sink;
  };
}
