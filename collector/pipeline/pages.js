// The page path every paged source shares (search, file, Log Cache): read the pages after the
// checkpoint, write each with its checkpoint in one transaction (two in flight, committed in order),
// count what each page read, stored and skipped. A source only yields pages; accounting and
// writing happen here, once.
import { retry } from '../../core/retry.js';
import { EXPECTED_SKIPS } from '../../core/reason-codes.js';
import { CONTEXT_REOPENS, WRITES_IN_FLIGHT } from '../../core/tunables.js';
import { readCheckpoint } from '../../exporters/postgres/claims/checkpoints.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/sink/page-writer.js';
import { orderedWrites } from './ordered-writes.js';

/** @typedef {import('../../core/types.js').SourcePage} SourcePage */
/** @typedef {import('../../core/types.js').PagedSource} PagedSource */
/** @typedef {import('../../core/types.js').SkippedExample} SkippedExample */

/**
 * What the pages of one read came to.
 * @typedef {object} PagesResult
 * @property {number} records records read and well-formed
 * @property {number} inserted rows new in PostgreSQL
 * @property {number} cleaned records stored with text cleaned (0x00, bytes not UTF-8: U+FFFD)
 * @property {Map<string, number>} skipped by reason
 * @property {Map<string, SkippedExample>} examples the first skipped item of each reason
 * @property {Map<string, number>} byKind records read by kind
 * @property {number} read items looked at (documents, lines, envelopes)
 * @property {string | undefined} position the last position stored
 * @property {{ number: number, text: string }} [firstLine]
 * @property {{ source: number, write: number, wall: number }} busyMs time each stage was busy (reading +
 *   parsing + encoding pages, writing pages; they overlap) and the whole read took
 */

/**
 * @typedef {object} PagesDeps
 * @property {import('pg').Pool} pool
 * @property {import('../../core/types.js').PageWriter} [writePage] default: the PostgreSQL page writer on `pool`
 * @property {Pick<import('../../core/types.js').Sink, 'write'>} [metrics] shown the newly stored router requests
 * @property {(reason: string, detail: string) => void} [warn] told once per skip reason of the whole read
 * @property {(reason: string, n: number) => string} [describeSkip] the warning's text
 * @property {(page: SourcePage) => Promise<void>} [beforeWrite] e.g. names the apps of a page's records
 */

/**
 * Skips counted (in the result and the metrics) but never warned about: whatever the source, they
 * are what `cf logs` output and router indices hold beside router requests.
 */
const UNWARNED_SKIPS = EXPECTED_SKIPS.documents;

/** @param {Map<string, number>} into @param {Map<string, number>} from */
export function addCounts(into, from) {
  for (const [reason, n] of from) into.set(reason, (into.get(reason) ?? 0) + n);
}

/** @template T @param {Map<string, T>} into @param {Map<string, T>} from */
export function addFirsts(into, from) {
  for (const [reason, example] of from) if (!into.has(reason)) into.set(reason, example);
}

/**
 * Iterates `source` one page ahead: the next page is fetched while the caller writes this one.
 * @template T @param {AsyncIterable<T>} source @returns {AsyncGenerator<T>}
 */
export async function* prefetchOne(source) {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = iterator.next();
      // A failed prefetch is reported when it is awaited; until then it must not count as unhandled.
      next.catch(() => {});
      yield current.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * `source`, counting how long each of its pages took to produce into `busy.source` (with
 * prefetchOne, that time overlaps the writes).
 * @template T @param {AsyncIterable<T>} source @param {{ source: number }} busy @returns {AsyncGenerator<T>}
 */
async function* timed(source, busy) {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const started = performance.now();
      const next = await iterator.next();
      busy.source += performance.now() - started;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/** @param {string | undefined} position @returns {PagesResult} */
function emptyResult(position) {
  return {
    records: 0,
    inserted: 0,
    cleaned: 0,
    skipped: new Map(),
    examples: new Map(),
    byKind: new Map(),
    read: 0,
    position,
    busyMs: { source: 0, write: 0, wall: 0 },
  };
}

/**
 * A page's records counted once it is stored (a page read again after a failure counts once).
 * @param {PagesResult} result @param {SourcePage} page @param {import('../../core/types.js').Inserted} inserted
 */
function account(result, page, inserted) {
  const rows = page.encoded?.rows ?? page.records.length;
  result.records += rows;
  result.byKind.set(page.kind, (result.byKind.get(page.kind) ?? 0) + rows);
  result.inserted += inserted.count;
  result.cleaned += inserted.cleaned ?? 0;
  result.read += page.read;
  addCounts(result.skipped, page.skipped);
  if (page.examples) addFirsts(result.examples, page.examples);
  result.firstLine ??= page.firstLine;
  if (page.position !== undefined) result.position = page.position;
}

/** @type {import('../../core/types.js').ReadOptions['encode']} */
const encode = (kind, records, count) => encodeRecords(kind, records, count);

/**
 * Reads `source` from `start` to its end and stores every page. With `checkpoint`, each page's
 * position is committed with its rows under `source.checkpointKey`. A read that fails with an error
 * the source calls resumable starts again from the last stored position.
 * @param {PagedSource} source
 * @param {{ start: string | undefined, until?: string, checkpoint?: boolean, signal?: AbortSignal,
 *   encoded?: boolean }} read until: where to stop (ReadOptions); encoded: the source may hand its rows
 *   encoded for COPY
 * @param {PagesDeps} deps
 * @returns {Promise<PagesResult>}
 */
export async function ingestPages(source, read, deps) {
  const result = emptyResult(read.start);
  const writePage = deps.writePage ?? createPageWriter(deps.pool);
  const started = performance.now();
  const key = read.checkpoint ? source.checkpointKey : undefined;
  await retry(
    async () => {
      const options = { until: read.until, signal: read.signal, encode: read.encoded ? encode : undefined };
      const pages = timed(source.readPages(result.position, options), result.busyMs);
      const writes = orderedWrites(writePage, WRITES_IN_FLIGHT);
      try {
        for await (const page of prefetchOne(pages)) {
          await deps.beforeWrite?.(page);
          const checkpoint = key && page.position !== undefined ? { source: key, position: page.position } : undefined;
          const rows = page.encoded?.rows ?? page.records.length;
          const writeStarted = performance.now();
          const observed = deps.metrics && page.kind === 'router_request' ? deps.metrics : undefined;
          const stored = (/** @type {import('../../core/types.js').Inserted} */ inserted) => {
            result.busyMs.write += performance.now() - writeStarted;
            observed?.write(inserted.records);
            account(result, page, inserted);
          };
          const { kind, records, encoded } = page;
          if (rows || checkpoint)
            await writes.write({ kind, records, encoded, checkpoint, countOnly: !observed }, stored);
          else await writes.drain().then(() => stored({ count: 0, records: [] }));
        }
        await writes.drain();
      } finally {
        // A failed read or write: the writes in flight end (committed or rolled back) before a retry
        // resumes from the last stored position.
        await writes.settled();
      }
    },
    {
      backoff: { retries: CONTEXT_REOPENS, baseDelayMs: 0, maxDelayMs: 0 },
      retryable: (err) => source.resumable?.(err) ?? false,
      onRetry: ({ err }) => {
        const reason = /** @type {any} */ (err).reason;
        deps.warn?.(reason, `search context lost (${reason}); reading again from ${result.position}`);
      },
    },
  );
  result.busyMs.wall = performance.now() - started;
  warnSkipped(result.skipped, deps);
  return result;
}

/**
 * One warning per skip reason for a whole read, with its count.
 * @param {Map<string, number>} skipped @param {PagesDeps} deps
 */
function warnSkipped(skipped, { warn, describeSkip }) {
  for (const [reason, n] of skipped) {
    if (UNWARNED_SKIPS.includes(reason)) continue;
    warn?.(reason, describeSkip ? describeSkip(reason, n) : `${n} items skipped: ${reason}`);
  }
}

/**
 * Reads `source` from its stored checkpoint on (or from its own start) and stores every page with
 * the checkpoint.
 * @param {PagedSource & { checkpointKey: string }} source @param {PagesDeps & { signal?: AbortSignal }} deps
 */
export async function ingestFromCheckpoint(source, deps) {
  const start = await readCheckpoint(deps.pool, source.checkpointKey);
  return ingestPages(source, { start, checkpoint: true, signal: deps.signal }, deps);
}
