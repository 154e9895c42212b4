// Cloud Controller API client: discovery, UAA auth, paging, bounded concurrency.
import pLimit from 'p-limit';
import { CLOUD_CONTROLLER } from '../../../core/reason-codes.js';
import { HttpError, createHttp, pathOf } from '../../net/http-client.js';
import { errorTitle } from './parse.js';
import { createTokenProvider } from './uaa.js';

/**
 * @typedef {object} Discovery
 * @property {string} apiVersion v3 version, or v2 when v3 is absent
 * @property {boolean} v3 false only when the API has no v3 link: then the v2 stats endpoint is used
 * @property {string} baseUrl
 * @property {string | undefined} logCacheUrl the root's `links.log_cache`, when the foundation runs Log Cache
 */

/**
 * @typedef {import('../../config/index.js').CloudControllerConfig & { api: string }} CloudControllerConfig
 * @typedef {import('../../net/http-client.js').HttpRequest} HttpRequest
 * @typedef {ReturnType<typeof createTokenProvider>} TokenProvider
 * @typedef {object} ClientDeps
 * @property {import('pino').Logger} [log]
 * @property {import('../../../core/retry.js').BackoffOptions} [backoff]
 * @property {(reason: string) => void} [onRetry] counts a retried request by reason
 */

/** @param {CloudControllerConfig} cf @param {ClientDeps} [deps] */
export function createCloudControllerClient(cf, deps = {}) {
  const { log } = deps;
  let requests = 0;
  const http = createLoggedHttp(cf, deps);
  const send = (/** @type {HttpRequest} */ request) => {
    requests += 1;
    return http.send(request);
  };
  const limit = pLimit(cf.concurrency);
  /** @type {Promise<Discovery & { tokens: TokenProvider }> | undefined} */
  let discovered;

  /** @param {AbortSignal} [signal] */
  function discovery(signal) {
    discovered ??= discover(cf, send, signal).catch((err) => {
      discovered = undefined;
      throw err;
    });
    return discovered;
  }

  /**
   * GET with a bearer token; a 401 CF-InvalidAuthToken refreshes the token once and retries.
   * @param {string} pathOrUrl @param {AbortSignal} [signal]
   * @returns {Promise<import('../../net/http-client.js').HttpResponse>}
   */
  function get(pathOrUrl, signal) {
    return limit(async () => {
      const { tokens } = await discovery(signal);
      const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${cf.api}${pathOrUrl}`;
      for (let attempt = 0; ; attempt++) {
        const token = await tokens.get(signal);
        const response = await send({
          url,
          headers: { Authorization: `bearer ${token}`, Accept: 'application/json' },
          signal,
        });
        if (response.status === 200) return response;
        const title = errorTitle(response.data);
        if (response.status === 401 && title === 'CF-InvalidAuthToken' && attempt === 0) {
          log?.info({ url: pathOf(url) }, 'cloud-controller: token rejected, fetching a new one');
          tokens.invalidate(token);
          continue;
        }
        throw refusal(url, response.status, title);
      }
    });
  }

  return {
    discovery,
    get,
    /**
     * A v3 list to the end: `pagination.next.href` until it is null.
     * @param {string} path
     * @param {AbortSignal} [signal]
     */
    getAllV3: (path, signal) => allPages(get, path, (body) => body?.pagination?.next?.href, signal),
    /** A v2 list to the end: `next_url` until it is null. @param {string} path @param {AbortSignal} [signal] */
    getAllV2: (path, signal) => allPages(get, path, (body) => body?.next_url, signal),
    /** Requests sent so far (including token requests and retries). */
    get requests() {
      return requests;
    },
    close: http.close,
  };
}

/**
 * Every resource of a list, page after page; `nextOf` reads the next page's address from a body.
 * @param {(pathOrUrl: string, signal?: AbortSignal) => Promise<{ data: any }>} get
 * @param {string} path @param {(body: any) => unknown} nextOf @param {AbortSignal} [signal] @returns {Promise<any[]>}
 */
async function allPages(get, path, nextOf, signal) {
  /** @type {any[]} */
  const all = [];
  /** @type {unknown} */
  let next = path;
  while (typeof next === 'string' && next) {
    const { data } = await get(next, signal);
    all.push(...(Array.isArray(data?.resources) ? data.resources : []));
    next = nextOf(data);
  }
  return all;
}

/**
 * The HTTP client for CF_API, which counts and logs each retried request.
 * @param {CloudControllerConfig} cf @param {ClientDeps} deps
 */
function createLoggedHttp(cf, { log, backoff, onRetry }) {
  return createHttp({
    setting: 'CF_API',
    timeoutMs: cf.timeoutMs,
    skipSslValidation: cf.skipSslValidation,
    backoff,
    errorTitle,
    onRetry: (e) => {
      onRetry?.(e.reason);
      log?.warn(
        { reason: e.reason, attempt: e.attempt, delayMs: e.delayMs, url: e.url },
        'cloud-controller: retrying request',
      );
    },
  });
}

/**
 * Reads the API root: its version, Log Cache and the UAA that issues its tokens.
 * @param {CloudControllerConfig} cf
 * @param {(request: HttpRequest) => Promise<import('../../net/http-client.js').HttpResponse>} send
 * @param {AbortSignal} [signal]
 * @returns {Promise<Discovery & { tokens: TokenProvider }>}
 */
async function discover(cf, send, signal) {
  const response = await send({ url: `${cf.api}/`, signal });
  if (response.status !== 200 || !response.data?.links) {
    throw new HttpError(`GET ${cf.api}/ answered ${response.status}: not a Cloud Controller API (no links)`, {
      status: response.status,
      reason: CLOUD_CONTROLLER.DISCOVERY,
    });
  }
  const links = response.data.links;
  const v3 = links.cloud_controller_v3;
  const v2 = links.cloud_controller_v2;
  const login = links.login?.href ?? links.uaa?.href;
  if (!v3 && !v2)
    throw new HttpError(`GET ${cf.api}/ lists neither cloud_controller_v3 nor cloud_controller_v2`, {
      reason: CLOUD_CONTROLLER.DISCOVERY,
    });
  if (!login) throw new HttpError(`GET ${cf.api}/ lists no login or uaa link`, { reason: CLOUD_CONTROLLER.DISCOVERY });
  const tokens = createTokenProvider({
    tokenUrl: `${String(login).replace(/\/+$/, '')}/oauth/token`,
    credentials: cf,
    send,
  });
  return {
    v3: Boolean(v3),
    apiVersion: String((v3 ?? v2).meta?.version ?? 'unknown'),
    baseUrl: cf.api,
    logCacheUrl: typeof links.log_cache?.href === 'string' ? links.log_cache.href.replace(/\/+$/, '') : undefined,
    tokens,
  };
}

/**
 * The error for a GET the API refused, its reason named for the metrics (auth, not_found, http_<status>).
 * @param {string} url @param {number} status @param {string | undefined} title
 */
function refusal(url, status, title) {
  const reason =
    status === 401 || status === 403
      ? CLOUD_CONTROLLER.AUTH
      : status === 404
        ? CLOUD_CONTROLLER.NOT_FOUND
        : `http_${status}`;
  return new HttpError(`GET ${pathOf(url)} answered ${status}${title ? ` ${title}` : ''}`, { status, title, reason });
}

/** @typedef {ReturnType<typeof createCloudControllerClient>} CloudControllerClient */
