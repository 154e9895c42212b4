// The two ways of paging through a search window: a point in time with search_after, and a
// scroll where the server has no point in time.
import { SEARCH } from '../../../core/reason-codes.js';
import { HttpError } from '../../net/http-client.js';

/**
 * @typedef {(method: string, path: string, body?: unknown, signal?: AbortSignal, options?: { once?: boolean })
 *   => Promise<import('../../net/http-client.js').HttpResponse>} Exchange the successful response
 *   (status 2xx); any other status fails with the server's reason
 */
/**
 * @typedef {{ _source: any, _id?: string, _index?: string, sort?: unknown[] }} Hit
 * @typedef {(bytes: number, documents: number, asked: number) => number} PageSizer the next page's size
 */

/**
 * @typedef {object} PagedRead what a way of reading (point in time, scroll) is given
 * @property {{ call: (...args: Parameters<Exchange>) => Promise<any>, exchange: Exchange }} http
 * @property {string} indexPath
 * @property {object} query @property {string} sortField @property {AbortSignal} [signal]
 * @property {{ total: number }} window documents the window holds, set before the first page
 * @property {import('pino').Logger} [log]
 *
 * @typedef {{ hits: Hit[], position?: string }} PositionedHits a page, and where a read that stops
 *   after it may resume (ISO 8601): everything before it has been handed on
 */

/**
 * Pages through a point in time, one stretch of the window after the other (cut from a date histogram
 * of the window, asked for with its total), each stretch in index order (`_index`, `_shard_doc`): the server
 * then starts each page where the last one ended instead of sorting the stretch by time again for
 * every page (bench/README.md). A stretch's last page carries the stretch's end as its position.
 * The next page is asked for before this one is handed on.
 * @param {PagedRead & { pit: 'opensearch' | 'elasticsearch', firstPage: number, sizeAfter: PageSizer,
 *   span: { from: string, to: string }, stretchDocs: number }} read
 * @returns {AsyncGenerator<PositionedHits>}
 */
export async function* readByPointInTime(read) {
  const { http, indexPath, query, sortField, signal, window, log, pit, ...sizes } = read;
  const { call, exchange } = http;
  const opened =
    pit === 'opensearch'
      ? await call(
          'POST',
          `/${indexPath}/_search/point_in_time?keep_alive=2m&allow_no_indices=false`,
          undefined,
          signal,
        )
      : await call('POST', `/${indexPath}/_pit?keep_alive=2m`, undefined, signal);
  let pitId = /** @type {string} */ (opened.pit_id ?? opened.id);
  // The page read ahead is given up (aborted) when the caller stops early.
  const readAhead = new AbortController();
  const stop = () => readAhead.abort();
  signal?.addEventListener('abort', stop, { once: true });
  /** @param {object} body */
  const search = (body) =>
    exchange('POST', '/_search', { ...body, pit: { id: pitId, keep_alive: '2m' } }, readAhead.signal);
  /** @param {Stretch} stretch @param {number} size @param {unknown[]} [after] */
  const page = (stretch, size, after) =>
    search({
      size,
      query: stretchQuery(query, sortField, stretch),
      // OpenSearch numbers _shard_doc by the shard's number in its index: _index first keeps it unique.
      sort: [{ _index: 'asc' }, { _shard_doc: 'asc' }],
      track_total_hits: false,
      ...(after ? { search_after: after } : {}),
    }).then((response) => ({ body: response.data, size, bytes: response.length ?? 0 }));
  /** @type {Promise<{ body: any, size: number, bytes: number }> | undefined} */
  let next;
  try {
    const aggs = stretchCounts(sortField, read.span);
    const counted = (
      await search({ size: 0, query, track_total_hits: true, ...(aggs ? { aggs: { stretches: aggs } } : {}) })
    ).data;
    pitId = counted.pit_id ?? pitId;
    window.total = Number(counted.hits?.total?.value ?? 0);
    const stretches = planStretches(counted.aggregations?.stretches?.buckets, read.stretchDocs, read.span.to);
    let stretch = 0;
    if (window.total > 0) next = page(stretches[0], sizes.firstPage);
    while (next) {
      const { body, size, bytes } = await next;
      next = undefined;
      pitId = body.pit_id ?? pitId; // always the newest id
      const hits = body.hits?.hits ?? [];
      const nextSize = hits.length ? sizes.sizeAfter(bytes, hits.length, size) : size;
      const done = hits.length < size;
      if (done) stretch += 1;
      if (stretch < stretches.length) {
        next = page(stretches[stretch], nextSize, done ? undefined : hits[hits.length - 1].sort);
        next.catch(() => {});
      }
      // A stretch that ended on an empty page still moves the position.
      if (hits.length || done) yield { hits, position: done ? stretches[stretch - 1].end : undefined };
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    if (next) {
      readAhead.abort();
      pitId = (await next.catch(() => undefined))?.body?.pit_id ?? pitId;
    }
    const close =
      pit === 'opensearch'
        ? call('DELETE', '/_search/point_in_time', { pit_id: [pitId] })
        : call('DELETE', '/_pit', { id: pitId });
    await close.catch((err) => log?.debug({ err }, 'search: closing point in time'));
  }
}

/**
 * Pages through a scroll (servers without a point in time), in time order: each page's position is
 * the time of its last document (the next read starts at that millisecond again).
 * @param {PagedRead & { scrollPage: number }} read
 * @returns {AsyncGenerator<PositionedHits>}
 */
export async function* readByScroll({ http, indexPath, query, sortField, signal, window, log, scrollPage }) {
  const { call } = http;
  let body = await call(
    'POST',
    `/${indexPath}/_search?scroll=2m&allow_no_indices=false`,
    { size: scrollPage, query, sort: [byTime(sortField)], track_total_hits: true },
    signal,
  );
  let scrollId = body._scroll_id;
  try {
    window.total = Number(body.hits?.total?.value ?? body.hits?.total ?? 0);
    for (;;) {
      const hits = body.hits?.hits ?? [];
      const last = hits.at(-1)?.sort?.[0];
      if (hits.length) yield { hits, position: typeof last === 'number' ? new Date(last).toISOString() : String(last) };
      if (hits.length < scrollPage) break;
      // Never repeated: a continuation that timed out may have moved the cursor, and a repeat would
      // skip a page. The window is read again from its last committed page instead.
      body = await call('POST', '/_search/scroll', { scroll: '2m', scroll_id: scrollId }, signal, {
        once: true,
      }).catch((err) => {
        if (!(err instanceof HttpError) || err.status !== undefined || signal?.aborted) throw err;
        throw new HttpError(`${err.message} (scroll interrupted)`, { reason: SEARCH.SEARCH_CONTEXT_LOST, cause: err });
      });
      scrollId = body._scroll_id ?? scrollId;
    }
  } finally {
    await call('DELETE', '/_search/scroll', { scroll_id: scrollId }).catch((err) =>
      log?.debug({ err }, 'search: clearing scroll'),
    );
  }
}

// Sort values in epoch ms whether an index maps the field as date or date_nanos (else nanoseconds).
const byTime = (/** @type {string} */ field) => ({ [field]: { order: 'asc', numeric_type: 'date' } });

/**
 * @typedef {object} Stretch a part of the window, [from, to) in epoch ms; undefined where the
 *   window's own bound applies (kept to its sub-millisecond)
 * @property {number | undefined} from @property {number | undefined} to
 * @property {string} end where a read that finished it resumes (ISO 8601)
 */

/** The date histogram of a window that its stretches are cut from: about this many buckets. */
export const STRETCH_BUCKETS = 1000;

/**
 * The aggregation that counts a window's documents by time, for `planStretches`.
 * @param {string} field @param {{ from: string, to: string }} span
 */
export function stretchCounts(field, span) {
  const width = Date.parse(span.to) - Date.parse(span.from);
  if (!(width > 0)) return undefined;
  const interval = Math.max(1, Math.ceil(width / STRETCH_BUCKETS));
  return { date_histogram: { field, fixed_interval: `${interval}ms`, min_doc_count: 1 } };
}

/**
 * The window cut into stretches of at most `docs` documents each (or one bucket's, when that holds
 * more), end to end, at the buckets' starts.
 * @param {Array<{ key: number, doc_count: number }> | undefined} buckets in time order
 * @param {number} docs @param {string} end the window's end
 * @returns {Stretch[]}
 */
export function planStretches(buckets, docs, end) {
  /** @type {Stretch[]} */
  const stretches = [];
  let from;
  let held = 0;
  for (const bucket of buckets ?? []) {
    if (held > 0 && held + bucket.doc_count > docs) {
      stretches.push({ from, to: bucket.key, end: new Date(bucket.key).toISOString() });
      from = bucket.key;
      held = 0;
    }
    held += bucket.doc_count;
  }
  stretches.push({ from, to: undefined, end });
  return stretches;
}

/**
 * The window's query narrowed to a stretch of the time field (epoch ms).
 * @param {object} query @param {string} field @param {Stretch} stretch
 */
export function stretchQuery(query, field, { from, to }) {
  if (from === undefined && to === undefined) return query;
  const range = {
    format: 'epoch_millis',
    ...(from === undefined ? {} : { gte: from }),
    ...(to === undefined ? {} : { lt: to }),
  };
  return { bool: { filter: [query, { range: { [field]: range } }] } };
}
