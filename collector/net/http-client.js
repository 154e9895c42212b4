// One axios instance and one retry loop per remote service (Cloud Controller, UAA, search).
import http from 'node:http';
import https from 'node:https';
import axios from 'axios';
import { DEFAULT_BACKOFF, rateLimitDelay, retry } from '../../core/retry.js';
import { CLOUD_CONTROLLER, HTTP } from '../../core/reason-codes.js';

/**
 * @typedef {object} HttpErrorOptions
 * @property {number} [status]
 * @property {string} [title]
 * @property {string} reason
 * @property {unknown} [cause]
 * @property {boolean} [retryable]
 * @property {number} [waitMs]
 */

/** An answer a remote service gave that retrying will not change (or retries ran out). */
export class HttpError extends Error {
  /**
   * @param {string} message
   * @param {HttpErrorOptions} options
   */
  constructor(message, options) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = options.status;
    this.title = options.title;
    this.reason = options.reason;
    /** A network failure, 5xx or 429: another attempt may succeed. */
    this.retryable = options.retryable ?? false;
    /** How long the answer asked to wait (Retry-After), in ms. */
    this.waitMs = options.waitMs;
  }
}

/** Node's certificate errors: SELF_SIGNED_CERT_IN_CHAIN, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ... */
const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'ECANCELED',
]);

/**
 * @typedef {object} HttpOptions
 * @property {number} timeoutMs
 * @property {boolean} skipSslValidation
 * @property {import('../../core/retry.js').BackoffOptions} [backoff]
 * @property {(body: unknown) => string | undefined} [errorTitle] the error's name in a body, e.g. "CF-StatsUnavailable"
 * @property {Record<string, string>} [headers] sent with every request (e.g. credentials)
 * @property {number} [maxRateLimitWaitMs] longest single wait a 429 may ask for
 * @property {(event: { reason: string, attempt: number, delayMs: number, url: string }) => void} [onRetry]
 * @property {string} [setting] the setting that names the service (CF_API): an unreachable service
 *   is named by it and its host, so the user knows what to fix
 *
 * @typedef {{ status: number, headers: Record<string, any>, data: any, length?: number }} HttpResponse
 *   length: characters of the body as it came, before it was parsed
 *
 * @typedef {object} HttpRequest
 * @property {string} [method]
 * @property {string} url
 * @property {Record<string, string>} [headers]
 * @property {unknown} [data]
 * @property {AbortSignal} [signal]
 * @property {boolean} [once] send once, never again: for a request whose repetition is not the same
 *   request (a scroll continuation: a timed-out one may have moved the cursor on the server)
 */

/**
 * @param {HttpOptions} options
 */
export function createHttp(options) {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const answer = {
    titleOf: options.errorTitle ?? (() => undefined),
    maxWaitMs: options.maxRateLimitWaitMs ?? 120_000,
  };
  const client = createAxiosClient(options);

  /**
   * One attempt: a 5xx, a 429 or no answer throws; any other status is returned.
   * @param {HttpRequest} request
   * @returns {Promise<HttpResponse>}
   */
  async function sendOnce(request) {
    let response;
    try {
      response = await client.request({
        method: request.method ?? 'GET',
        url: request.url,
        headers: request.headers,
        data: request.data,
        signal: request.signal,
      });
    } catch (err) {
      throw transportError(err, request, options.setting);
    }
    return checkedAnswer(response, request, answer);
  }

  /**
   * Sends a request, retrying network errors, 5xx and 429 (waiting as long as a 429 asks, up to a
   * limit). Any other status is returned.
   * @param {HttpRequest} request
   * @returns {Promise<HttpResponse>}
   */
  function send(request) {
    return retry(() => sendOnce(request), {
      backoff: request.once ? { ...backoff, retries: 0 } : backoff,
      signal: request.signal,
      retryable: (err) => err instanceof HttpError && err.retryable,
      delayOf: (err) => /** @type {HttpError} */ (err).waitMs,
      onRetry: ({ err, attempt, delayMs }) =>
        options.onRetry?.({
          reason: /** @type {HttpError} */ (err).reason,
          attempt,
          delayMs,
          url: pathOf(request.url),
        }),
    });
  }

  return {
    send,
    close: () => {
      client.defaults.httpAgent?.destroy();
      client.defaults.httpsAgent?.destroy();
    },
  };
}

/** One keep-alive axios instance that hands back every status and the body as text. @param {HttpOptions} options */
function createAxiosClient(options) {
  return axios.create({
    timeout: options.timeoutMs,
    httpAgent: new http.Agent({ keepAlive: true }),
    httpsAgent: new https.Agent({ keepAlive: true, rejectUnauthorized: !options.skipSslValidation }),
    validateStatus: () => true,
    // Bodies are parsed below whatever the content type says: the CC sends 429 JSON as text/plain.
    responseType: 'text',
    transformResponse: [(data) => data],
    maxRedirects: 0,
    headers: options.headers,
  });
}

/**
 * What to throw when a request got no answer: an HttpError for network and TLS failures, the error
 * itself for an abort or anything that is not the network's.
 * @param {unknown} err @param {HttpRequest} request @param {string} [setting]
 */
function transportError(err, request, setting) {
  if (request.signal?.aborted) return err;
  const code = /** @type {any} */ (err).code;
  if (!NETWORK_CODES.has(code) && !axios.isAxiosError(err)) return err;
  // A certificate that is not trusted will not be trusted on the next attempt either.
  if (typeof code === 'string' && TLS_CODE.test(code))
    return new HttpError(
      `${request.method ?? 'GET'} ${new URL(request.url).host}: TLS certificate not trusted ` +
        `(${code}: ${/** @type {Error} */ (err).message})`,
      { reason: HTTP.TLS, cause: err },
    );
  const reason = code === 'ECONNABORTED' || code === 'ETIMEDOUT' ? HTTP.TIMEOUT : HTTP.NETWORK;
  const what = code ?? /** @type {Error} */ (err).message;
  const where = setting ? ` (${setting}: ${new URL(request.url).host})` : '';
  return new HttpError(`${request.method ?? 'GET'} ${pathOf(request.url)} failed: ${what}${where}`, {
    reason,
    cause: err,
    // A name that does not resolve will not resolve in the seconds a retry waits.
    retryable: code !== 'ENOTFOUND',
  });
}

/**
 * The response with its body parsed, or the HttpError for a 5xx, a 429 or a success that is not JSON.
 * @param {import('axios').AxiosResponse} response @param {HttpRequest} request
 * @param {{ titleOf: (body: unknown) => string | undefined, maxWaitMs: number }} answer
 * @returns {HttpResponse}
 */
function checkedAnswer(response, request, { titleOf, maxWaitMs }) {
  const data = parseBody(response.data);
  const length = typeof response.data === 'string' ? response.data.length : 0;
  const status = response.status;
  // Every API paasmon reads answers JSON: a success that is not (a proxy's HTML page, a body cut
  // off) is a failure, not an empty answer.
  if (status >= 200 && status < 300 && typeof data === 'string' && data !== '') {
    const type = String(response.headers['content-type'] ?? 'no content type').split(';')[0];
    throw new HttpError(
      `${request.method ?? 'GET'} ${pathOf(request.url)} answered ${status} with a body that is not JSON ` +
        `(${type}, ${data.length} bytes)`,
      { status, reason: HTTP.BAD_RESPONSE, retryable: true },
    );
  }
  if (status < 500 && status !== 429) return { status, headers: response.headers, data, length };
  const title = titleOf(data);
  const reason =
    status === 429
      ? HTTP.RATE_LIMITED
      : title === 'CF-StatsUnavailable'
        ? CLOUD_CONTROLLER.STATS_UNAVAILABLE
        : `http_${status}`;
  const waitMs = status === 429 ? rateLimitDelay(response.headers, Date.now()) : undefined;
  throw new HttpError(
    `${request.method ?? 'GET'} ${pathOf(request.url)} answered ${status}${title ? ` ${title}` : ''}`,
    {
      status,
      title,
      reason,
      retryable: true,
      waitMs: waitMs === undefined ? undefined : Math.min(waitMs, maxWaitMs),
    },
  );
}

/** @param {unknown} body */
function parseBody(body) {
  if (typeof body !== 'string' || body === '') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** The path and query of a URL, for messages (never the host's credentials). @param {string} url */
export function pathOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}
