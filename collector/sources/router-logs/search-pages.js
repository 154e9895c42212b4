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
 * @property {{ total: number }} window documents the window holds, set from the first page
 * @property {import('pino').Logger} [log]
 */

/**
 * Pages through a point in time with search_after, the next page asked for before this one is
 * handed on: the server reads it while the caller maps and stores this one.
 * @param {PagedRead & { pit: 'opensearch' | 'elasticsearch', firstPage: number, sizeAfter: PageSizer }} read
 * @returns {AsyncGenerator<Hit[]>}
 */
export async function* readByPointInTime({ http, indexPath, query, sortField, signal, window, log, pit, ...sizes }) {
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
  /** @param {unknown[] | undefined} after @param {number} size */
  const page = (after, size) =>
    exchange(
      'POST',
      '/_search',
      {
        size,
        query,
        sort: [byTime(sortField), { _shard_doc: 'asc' }],
        pit: { id: pitId, keep_alive: '2m' },
        track_total_hits: window.total < 0,
        ...(after ? { search_after: after } : {}),
      },
      readAhead.signal,
    ).then((response) => ({ body: response.data, size, bytes: response.length ?? 0 }));
  /** @type {Promise<{ body: any, size: number, bytes: number }> | undefined} */
  let next = page(undefined, sizes.firstPage);
  try {
    while (next) {
      const { body, size, bytes } = await next;
      next = undefined;
      pitId = body.pit_id ?? pitId; // always the newest id
      if (window.total < 0) window.total = Number(body.hits?.total?.value ?? 0);
      const hits = body.hits?.hits ?? [];
      if (hits.length === size) {
        next = page(hits[hits.length - 1].sort, sizes.sizeAfter(bytes, hits.length, size));
        next.catch(() => {});
      }
      if (hits.length) yield hits;
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
 * Pages through a scroll (servers without a point in time).
 * @param {PagedRead & { scrollPage: number }} read
 * @returns {AsyncGenerator<Hit[]>}
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
      if (hits.length) yield hits;
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
export const byTime = (/** @type {string} */ field) => ({ [field]: { order: 'asc', numeric_type: 'date' } });
