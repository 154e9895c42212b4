// Elasticsearch / OpenSearch reader: every document of a time window, in timestamp order, with
// search_after over a point in time (scroll where there is none), proving it read what the window holds.
import { HttpError, createHttp } from '../../net/http-client.js';

/**
 * @typedef {object} ServerInfo
 * @property {'opensearch' | 'elasticsearch'} flavor
 * @property {string} version
 * @property {'opensearch' | 'elasticsearch' | null} pit which point-in-time API the server has
 *
 * @typedef {object} Page
 * @property {Array<{ _source: any, _id?: string, _index?: string, sort?: unknown[] }>} hits the
 *   reader is done with them once they are handed on: the caller may let go of each (set it undefined)
 * @property {number} total documents the window holds (track_total_hits)
 */

/** @param {unknown} body */
function searchErrorTitle(body) {
  const error = /** @type {any} */ (body)?.error;
  if (!error || typeof error !== 'object') return undefined;
  const inner = error.root_cause?.[0]?.type ?? error.caused_by?.type;
  return inner ?? error.type;
}

/** @param {string} a @param {string} b major.minor comparison */
function atLeast(a, b) {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am > bm || (am === bm && an >= bn);
}

/**
 * Pages of about this many characters of response (a byte each, for JSON in ASCII). What the reader
 * holds is a page or two, text and parsed documents: counting bytes, not documents, bounds that
 * after the first page for documents of any size. Larger pages read no faster and cost more memory
 * and CPU (V8 copies more of a page's parsed documents that are still alive when it collects the
 * young generation); smaller ones read slower (bench/ingest.bench.js, bench/README.md).
 */
export const PAGE_BYTES = 1.5 * 1024 * 1024;
/** The first page, before the size of a document is known. */
export const FIRST_PAGE = 1000;
/** A scroll keeps the size it was opened with: about PAGE_BYTES of the bench's documents. */
export const SCROLL_PAGE = 2000;
const MOST_PER_PAGE = 10_000;

/**
 * How many documents the next page asks for, from the size of the last one.
 * @param {number} bytes the last response's length @param {number} documents in it
 * @param {number} asked what the last page asked for
 */
export function nextPageSize(bytes, documents, asked) {
  if (!(bytes > 0) || documents === 0) return asked;
  return Math.max(1, Math.min(MOST_PER_PAGE, Math.round((PAGE_BYTES * documents) / bytes)));
}

/**
 * @typedef {object} SearchClientDeps
 * @property {import('pino').Logger} [log]
 * @property {import('../../../core/retry.js').BackoffOptions} [backoff]
 * @property {number} [timeoutMs]
 * @property {number} [pageSize] documents per page, fixed (else pages of about PAGE_BYTES)
 * @property {(reason: string) => void} [onRetry] counts a retried request by reason
 */

/**
 * @param {import('../../config/index.js').Config['search'] & { url: string }} search
 * @param {SearchClientDeps} [deps]
 */
export function createSearchClient(search, deps = {}) {
  /** @type {Record<string, string>} */
  // Uncompressed: on a LAN or loopback gzip costs both sides more CPU than it saves (bench/ingest.bench.js).
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json', 'Accept-Encoding': 'identity' };
  if (search.apiKey) headers.Authorization = `ApiKey ${search.apiKey}`;
  else if (search.username)
    headers.Authorization = `Basic ${Buffer.from(`${search.username}:${search.password ?? ''}`).toString('base64')}`;
  const http = createHttp({
    setting: 'SEARCH_URL',
    timeoutMs: deps.timeoutMs ?? 60_000,
    skipSslValidation: false,
    backoff: deps.backoff,
    headers,
    errorTitle: searchErrorTitle,
    onRetry: (e) => {
      deps.onRetry?.(e.reason);
      deps.log?.warn(
        { reason: e.reason, attempt: e.attempt, delayMs: e.delayMs, url: e.url },
        'search: retrying request',
      );
    },
  });
  const firstPage = deps.pageSize ?? FIRST_PAGE;
  const scrollPage = deps.pageSize ?? SCROLL_PAGE;
  /** @type {typeof nextPageSize} */
  const sizeAfter = deps.pageSize ? () => firstPage : nextPageSize;
  /** @type {Promise<ServerInfo> | undefined} */
  let info;

  /**
   * @param {string} method @param {string} path @param {unknown} [body] @param {AbortSignal} [signal]
   * @param {{ once?: boolean }} [options]
   * @returns {Promise<any>}
   */
  async function call(method, path, body, signal, options = {}) {
    return (await exchange(method, path, body, signal, options)).data;
  }

  /**
   * The successful response (status 2xx); any other status fails with the server's reason.
   * @param {string} method @param {string} path @param {unknown} [body] @param {AbortSignal} [signal]
   * @param {{ once?: boolean }} [options]
   * @returns {Promise<import('../../net/http-client.js').HttpResponse>}
   */
  async function exchange(method, path, body, signal, options = {}) {
    const response = await http
      .send({
        method,
        url: `${search.url}${path}`,
        data: body === undefined ? undefined : JSON.stringify(body),
        signal,
        once: options.once,
      })
      .catch((err) => {
        throw err instanceof HttpError
          ? new HttpError(`search: ${err.message}`, {
              status: err.status,
              title: err.title,
              reason: err.reason,
              cause: err.cause,
            })
          : err;
      });
    if (response.status >= 200 && response.status < 300) return response;
    const title = searchErrorTitle(response.data);
    const reason =
      response.status === 401 || response.status === 403
        ? 'auth'
        : title === 'index_not_found_exception'
          ? 'index_not_found'
          : title === 'search_context_missing_exception'
            ? 'pit_expired'
            : `http_${response.status}`;
    const detail =
      reason === 'index_not_found'
        ? `no index matches SEARCH_INDEX=${search.index}`
        : `${method} ${path.split('?')[0]} answered ${response.status}${title ? ` ${title}` : ''}`;
    throw new HttpError(`search: ${detail}`, { status: response.status, title, reason });
  }

  /** @param {AbortSignal} [signal] @returns {Promise<ServerInfo>} */
  async function detect(signal) {
    const root = await call('GET', '/', undefined, signal);
    const version = String(root?.version?.number ?? '0.0.0');
    if (root?.version?.distribution === 'opensearch') {
      return { flavor: 'opensearch', version, pit: atLeast(version, '2.4') ? 'opensearch' : null };
    }
    // The point-in-time API is part of X-Pack: the Apache-licensed 7.10 build has none.
    let pit = null;
    if (atLeast(version, '7.10')) {
      const xpack = await http.send({ url: `${search.url}/_xpack`, signal });
      if (xpack.status === 200) pit = /** @type {const} */ ('elasticsearch');
    }
    return { flavor: 'elasticsearch', version, pit };
  }

  /** @param {AbortSignal} [signal] */
  function server(signal) {
    info ??= detect(signal).catch((err) => {
      info = undefined;
      throw err;
    });
    return info;
  }

  const indexPath = () => encodeURIComponent(search.index).replace(/%2C/g, ',').replace(/%2A/g, '*');

  /**
   * Every hit of `query`, sorted by `sortField` ascending, page by page. Throws when the number
   * read differs from the number the window held when the read began.
   *
   * Each document comes whole: filtering `_source` made the search server parse and write every
   * document again (far more of its CPU per document, bench/README.md), on a cluster that is busy
   * indexing the load test's own logs meanwhile; whole, it sends the bytes it stored.
   * @param {{ query: object, sortField: string, signal?: AbortSignal }} request
   * @returns {AsyncGenerator<Page>}
   */
  async function* readAll({ query, sortField, signal }) {
    const { pit } = await server(signal);
    let read = 0;
    let total = -1;
    if (pit) {
      const opened =
        pit === 'opensearch'
          ? await call(
              'POST',
              `/${indexPath()}/_search/point_in_time?keep_alive=2m&allow_no_indices=false`,
              undefined,
              signal,
            )
          : await call('POST', `/${indexPath()}/_pit?keep_alive=2m`, undefined, signal);
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
            track_total_hits: total < 0,
            ...(after ? { search_after: after } : {}),
          },
          readAhead.signal,
        ).then((response) => ({ body: response.data, size, bytes: response.length ?? 0 }));
      /** @type {Promise<{ body: any, size: number, bytes: number }> | undefined} */
      let next = page(undefined, firstPage);
      try {
        while (next) {
          const { body, size, bytes } = await next;
          next = undefined;
          pitId = body.pit_id ?? pitId; // always the newest id
          if (total < 0) total = Number(body.hits?.total?.value ?? 0);
          const hits = body.hits?.hits ?? [];
          read += hits.length;
          // The next page is asked for before this one is handed on: the server reads it while
          // the caller maps and stores this one.
          if (hits.length === size) {
            next = page(hits[hits.length - 1].sort, sizeAfter(bytes, hits.length, size));
            next.catch(() => {});
          }
          if (hits.length) yield { hits, total };
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
        await close.catch((err) => deps.log?.debug({ err }, 'search: closing point in time'));
      }
    } else {
      let body = await call(
        'POST',
        `/${indexPath()}/_search?scroll=2m&allow_no_indices=false`,
        {
          size: scrollPage,
          query,
          sort: [byTime(sortField)],
          track_total_hits: true,
        },
        signal,
      );
      let scrollId = body._scroll_id;
      try {
        total = Number(body.hits?.total?.value ?? body.hits?.total ?? 0);
        for (;;) {
          const hits = body.hits?.hits ?? [];
          read += hits.length;
          if (hits.length) yield { hits, total };
          if (hits.length < scrollPage) break;
          // Never repeated: a continuation that timed out may have moved the cursor, and a repeat would
          // skip a page. The window is read again from its last committed page instead.
          body = await call('POST', '/_search/scroll', { scroll: '2m', scroll_id: scrollId }, signal, {
            once: true,
          }).catch((err) => {
            if (!(err instanceof HttpError) || err.status !== undefined || signal?.aborted) throw err;
            throw new HttpError(`${err.message} (scroll interrupted)`, { reason: 'search_context_lost', cause: err });
          });
          scrollId = body._scroll_id ?? scrollId;
        }
      } finally {
        await call('DELETE', '/_search/scroll', { scroll_id: scrollId }).catch((err) =>
          deps.log?.debug({ err }, 'search: clearing scroll'),
        );
      }
    }
    if (read !== total) {
      throw new HttpError(`search: read ${read} documents but the window held ${total}`, { reason: 'incomplete_read' });
    }
  }

  return { server, readAll, close: http.close };
}

// Sort values in epoch ms whether an index maps the field as date or date_nanos (else nanoseconds).
export const byTime = (/** @type {string} */ field) => ({ [field]: { order: 'asc', numeric_type: 'date' } });

/** @typedef {ReturnType<typeof createSearchClient>} SearchClient */
