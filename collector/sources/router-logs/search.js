// Elasticsearch / OpenSearch reader: every document of a time window, stretch by stretch in index order
// over a point in time (in time order by scroll where there is none), proving it read what the window holds.
import { SEARCH } from '../../../core/reason-codes.js';
import { HttpError, createHttp } from '../../net/http-client.js';
import { readByPointInTime, readByScroll } from './search-pages.js';

/**
 * @typedef {object} ServerInfo
 * @property {'opensearch' | 'elasticsearch'} flavor
 * @property {string} version
 * @property {'opensearch' | 'elasticsearch' | null} pit which point-in-time API the server has
 *
 * @typedef {object} Page
 * @property {Array<{ _source: any, _id?: string, _index?: string, sort?: unknown[] }>} hits the
 *   reader is done with them once they are handed on: the caller may let go of each (set it undefined)
 * @property {string | undefined} position where a read may resume once this page is stored (ISO 8601)
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
 * A window is read over a point in time in stretches of about this many documents: where a read
 * that failed resumes (the checkpoint moves at each stretch's end), each re-read at most once more.
 */
export const STRETCH_DOCS = 50_000;

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
 * @property {number} [stretchDocs] documents per stretch of a window read over a point in time
 * @property {(reason: string) => void} [onRetry] counts a retried request by reason
 */

/**
 * The request headers: JSON, uncompressed, and the credentials.
 * @param {import('../../config/index.js').Config['search']} search
 */
function searchHeaders(search) {
  /** @type {Record<string, string>} */
  // Uncompressed: on a LAN or loopback gzip costs both sides more CPU than it saves (bench/ingest.bench.js).
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json', 'Accept-Encoding': 'identity' };
  if (search.apiKey) headers.Authorization = `ApiKey ${search.apiKey}`;
  else if (search.username)
    headers.Authorization = `Basic ${Buffer.from(`${search.username}:${search.password ?? ''}`).toString('base64')}`;
  return headers;
}

/** @typedef {import('./search-pages.js').Exchange} Exchange */

/**
 * The search server's HTTP: requests retried as http-client.js does, failures named by reason.
 * @param {import('../../config/index.js').Config['search'] & { url: string }} search
 * @param {SearchClientDeps} deps
 */
function searchHttp(search, deps) {
  const http = createHttp({
    setting: 'SEARCH_URL',
    timeoutMs: deps.timeoutMs ?? 60_000,
    skipSslValidation: false,
    backoff: deps.backoff,
    headers: searchHeaders(search),
    errorTitle: searchErrorTitle,
    onRetry: (e) => {
      deps.onRetry?.(e.reason);
      deps.log?.warn(
        { reason: e.reason, attempt: e.attempt, delayMs: e.delayMs, url: e.url },
        'search: retrying request',
      );
    },
  });
  /** @type {Exchange} */
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
    throw statusError(response, method, path, search.index);
  }
  /** @type {(...args: Parameters<Exchange>) => Promise<any>} the successful response's body */
  const call = async (...args) => (await exchange(...args)).data;
  return { http, exchange, call };
}

/**
 * The failure a search response of another status than 2xx stands for.
 * @param {import('../../net/http-client.js').HttpResponse} response
 * @param {string} method @param {string} path @param {string} index
 */
function statusError(response, method, path, index) {
  const title = searchErrorTitle(response.data);
  const reason =
    response.status === 401 || response.status === 403
      ? SEARCH.AUTH
      : title === 'index_not_found_exception'
        ? SEARCH.INDEX_NOT_FOUND
        : title === 'search_context_missing_exception'
          ? SEARCH.PIT_EXPIRED
          : `http_${response.status}`;
  const detail =
    reason === SEARCH.INDEX_NOT_FOUND
      ? `no index matches SEARCH_INDEX=${index}`
      : `${method} ${path.split('?')[0]} answered ${response.status}${title ? ` ${title}` : ''}`;
  return new HttpError(`search: ${detail}`, { status: response.status, title, reason });
}

/**
 * Which server it is, and which point-in-time API it has.
 * @param {ReturnType<typeof searchHttp>} searchHttpOf @param {string} url @param {AbortSignal} [signal]
 * @returns {Promise<ServerInfo>}
 */
async function detect({ http, call }, url, signal) {
  const root = await call('GET', '/', undefined, signal);
  const version = String(root?.version?.number ?? '0.0.0');
  // A point in time is read in `_shard_doc` order: OpenSearch has it from 3.3, Elasticsearch from 7.12.
  if (root?.version?.distribution === 'opensearch') {
    return { flavor: 'opensearch', version, pit: atLeast(version, '3.3') ? 'opensearch' : null };
  }
  // The point-in-time API is part of X-Pack: the Apache-licensed 7.10 build has none.
  let pit = null;
  if (atLeast(version, '7.12')) {
    const xpack = await http.send({ url: `${url}/_xpack`, signal });
    if (xpack.status === 200) pit = /** @type {const} */ ('elasticsearch');
  }
  return { flavor: 'elasticsearch', version, pit };
}

/**
 * @param {import('../../config/index.js').Config['search'] & { url: string }} search
 * @param {SearchClientDeps} [deps]
 */
export function createSearchClient(search, deps = {}) {
  const http = searchHttp(search, deps);
  const firstPage = deps.pageSize ?? FIRST_PAGE;
  const scrollPage = deps.pageSize ?? SCROLL_PAGE;
  const stretchDocs = deps.stretchDocs ?? STRETCH_DOCS;
  /** @type {typeof nextPageSize} */
  const sizeAfter = deps.pageSize ? () => firstPage : nextPageSize;
  /** @type {Promise<ServerInfo> | undefined} */
  let info;

  /** @param {AbortSignal} [signal] */
  function server(signal) {
    info ??= detect(http, search.url, signal).catch((err) => {
      info = undefined;
      throw err;
    });
    return info;
  }

  const indexPath = () => encodeURIComponent(search.index).replace(/%2C/g, ',').replace(/%2A/g, '*');

  /**
   * Every hit of `query` in [span.from, span.to) of `sortField`, page by page, each page with the
   * position a read may resume from once it is stored. Throws when the number read differs from the
   * number the window held when the read began.
   *
   * Each document comes whole: filtering `_source` made the search server parse and write every
   * document again (more of its CPU per document, bench/README.md), on a cluster that is busy
   * indexing the load test's own logs meanwhile; whole, it sends the bytes it stored.
   * @param {{ query: object, sortField: string, span: { from: string, to: string }, signal?: AbortSignal }} request
   * @returns {AsyncGenerator<Page>}
   */
  async function* readAll({ query, sortField, span, signal }) {
    const { pit } = await server(signal);
    const window = { total: -1 };
    const read = { http, indexPath: indexPath(), query, sortField, signal, window, log: deps.log };
    const pages = pit
      ? readByPointInTime({ ...read, pit, firstPage, sizeAfter, span, stretchDocs })
      : readByScroll({ ...read, scrollPage });
    let documents = 0;
    for await (const { hits, position } of pages) {
      documents += hits.length;
      yield { hits, position };
    }
    if (documents !== window.total) {
      throw new HttpError(`search: read ${documents} documents but the window held ${window.total}`, {
        reason: SEARCH.INCOMPLETE_READ,
      });
    }
  }

  return { server, readAll, close: http.http.close };
}

/** @typedef {ReturnType<typeof createSearchClient>} SearchClient */
