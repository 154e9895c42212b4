// One axios instance and one retry loop per remote service (Cloud Controller, UAA, search).
import http from 'node:http';
import https from 'node:https';
import axios from 'axios';
import { DEFAULT_BACKOFF, backoffDelay, rateLimitDelay, sleep } from './retry.js';

/** An answer a remote service gave that retrying will not change (or retries ran out). */
export class HttpError extends Error {
  /**
   * @param {string} message
   * @param {{ status?: number, title?: string, reason: string, cause?: unknown }} options
   */
  constructor(message, options) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = options.status;
    this.title = options.title;
    this.reason = options.reason;
  }
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE', 'ENOTFOUND',
  'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ECANCELED']);

/**
 * @typedef {object} HttpOptions
 * @property {number} timeoutMs
 * @property {boolean} skipSslValidation
 * @property {import('./retry.js').BackoffOptions} [backoff]
 * @property {(body: unknown) => string | undefined} [errorTitle] the error's name in a body, e.g. "CF-StatsUnavailable"
 * @property {Record<string, string>} [headers] sent with every request (e.g. credentials)
 * @property {number} [maxRateLimitWaitMs] longest single wait a 429 may ask for
 * @property {(event: { reason: string, attempt: number, delayMs: number, url: string }) => void} [onRetry]
 *
 * @typedef {{ status: number, headers: Record<string, any>, data: any }} HttpResponse
 * @typedef {{ method?: string, url: string, headers?: Record<string, string>, data?: unknown, signal?: AbortSignal }} HttpRequest
 */

/**
 * @param {HttpOptions} options
 */
export function createHttp(options) {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 120_000;
  const client = axios.create({
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
  const titleOf = options.errorTitle ?? (() => undefined);

  /**
   * Sends a request, retrying network errors, 5xx and 429. Any other status is returned.
   * @param {HttpRequest} request
   * @returns {Promise<HttpResponse>}
   */
  async function send(request) {
    for (let attempt = 0; ; attempt++) {
      /** @type {{ reason: string, delayMs?: number, error: HttpError }} */
      let failure;
      try {
        const response = await client.request({
          method: request.method ?? 'GET', url: request.url, headers: request.headers, data: request.data, signal: request.signal,
        });
        const data = parseBody(response.data);
        const status = response.status;
        if (status < 500 && status !== 429) return { status, headers: response.headers, data };
        const title = titleOf(data);
        const reason = status === 429 ? 'rate_limited' : title === 'CF-StatsUnavailable' ? 'stats_unavailable' : `http_${status}`;
        const delayMs = status === 429 ? rateLimitDelay(response.headers, Date.now()) : undefined;
        failure = {
          reason,
          delayMs,
          error: new HttpError(`${request.method ?? 'GET'} ${pathOf(request.url)} answered ${status}${title ? ` ${title}` : ''}`, { status, title, reason }),
        };
      } catch (err) {
        if (request.signal?.aborted) throw err;
        const code = /** @type {any} */ (err).code;
        if (!NETWORK_CODES.has(code) && !axios.isAxiosError(err)) throw err;
        const reason = code === 'ECONNABORTED' || code === 'ETIMEDOUT' ? 'timeout' : 'network';
        failure = {
          reason,
          error: new HttpError(`${request.method ?? 'GET'} ${pathOf(request.url)} failed: ${code ?? /** @type {Error} */ (err).message}`, { reason, cause: err }),
        };
      }
      if (attempt >= backoff.retries) throw failure.error;
      const delayMs = failure.delayMs !== undefined
        ? Math.min(failure.delayMs, maxRateLimitWaitMs)
        : backoffDelay(attempt, backoff);
      options.onRetry?.({ reason: failure.reason, attempt: attempt + 1, delayMs, url: pathOf(request.url) });
      await sleep(delayMs, request.signal);
    }
  }

  return { send, close: () => { client.defaults.httpAgent?.destroy(); client.defaults.httpsAgent?.destroy(); } };
}

/** @param {unknown} body */
function parseBody(body) {
  if (typeof body !== 'string' || body === '') return body;
  try { return JSON.parse(body); } catch { return body; }
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
