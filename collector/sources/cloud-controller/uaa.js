// UAA tokens the way the cf CLI gets them: password grant with client `cf` (empty secret), or
// client credentials; refreshed when under a minute remains and once after a 401 InvalidAuthToken.
import { CLOUD_CONTROLLER } from '../../../core/reason-codes.js';
import { HttpError } from '../../net/http-client.js';

const CF_CLIENT_BASIC = `Basic ${Buffer.from('cf:').toString('base64')}`;
const REFRESH_MARGIN_MS = 60_000;

/**
 * Expiry of a JWT from its `exp` claim, or undefined when the token is not a readable JWT.
 * @param {string} token @returns {number | undefined} epoch ms
 */
export function jwtExpiry(token) {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** @typedef {import('../../net/http-client.js').HttpRequest} HttpRequest */
/** @typedef {import('../../net/http-client.js').HttpResponse} HttpResponse */

/**
 * @param {object} options
 * @param {string} options.tokenUrl
 * @param {{ username?: string, password?: string, clientId?: string, clientSecret?: string }} options.credentials
 * @param {(req: HttpRequest) => Promise<HttpResponse>} options.send
 * @param {() => number} [options.now]
 */
export function createTokenProvider({ tokenUrl, credentials, send, now = Date.now }) {
  /** @type {{ accessToken: string, refreshToken?: string, expiresAt: number } | undefined} */
  let token;
  /** @type {Promise<string> | undefined} */
  let inFlight;
  let grants = 0;

  /** @param {Record<string, string>} form @param {AbortSignal} [signal] */
  async function requestToken(form, signal) {
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (form.grant_type !== 'client_credentials') Object.assign(headers, { Authorization: CF_CLIENT_BASIC });
    const response = await send({
      method: 'POST',
      url: tokenUrl,
      headers,
      data: new URLSearchParams(form).toString(),
      signal,
    });
    grants += 1;
    token = grantedToken(response, form.grant_type, now);
    return token.accessToken;
  }

  /** @param {AbortSignal} [signal] */
  async function obtain(signal) {
    if (credentials.clientId) {
      return requestToken(
        {
          grant_type: 'client_credentials',
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret ?? '',
        },
        signal,
      );
    }
    if (token?.refreshToken) {
      try {
        return await requestToken({ grant_type: 'refresh_token', refresh_token: token.refreshToken }, signal);
      } catch (err) {
        if (!(err instanceof HttpError) || err.reason !== CLOUD_CONTROLLER.AUTH) throw err;
        // An expired refresh token: fall through to a fresh password grant.
      }
    }
    return requestToken(
      { grant_type: 'password', username: credentials.username ?? '', password: credentials.password ?? '' },
      signal,
    );
  }

  return {
    /** A valid access token, fetching or refreshing one when under a minute remains. @param {AbortSignal} [signal] */
    async get(signal) {
      if (token && token.expiresAt - now() > REFRESH_MARGIN_MS) return token.accessToken;
      inFlight ??= obtain(signal).finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    /** Forget the token so the next `get` fetches a new one (after a 401 InvalidAuthToken). @param {string} rejected */
    invalidate(rejected) {
      if (token?.accessToken === rejected) token = { ...token, expiresAt: 0 };
    },
    /** How many token requests were sent, for tests and the poll summary. */
    get grants() {
      return grants;
    },
  };
}

/**
 * The token a grant answered with, expiring when its JWT says (else after `expires_in`); a refusal throws.
 * @param {HttpResponse} response @param {string} grantType @param {() => number} now
 * @returns {{ accessToken: string, refreshToken?: string, expiresAt: number }}
 */
function grantedToken(response, grantType, now) {
  const body = response.data ?? {};
  if (response.status !== 200 || typeof body.access_token !== 'string') {
    const what =
      typeof body === 'object' && body.error
        ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}`
        : `HTTP ${response.status}`;
    throw new HttpError(`UAA refused the ${grantType} grant (${what})`, {
      status: response.status,
      title: body.error,
      reason: CLOUD_CONTROLLER.AUTH,
    });
  }
  const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 0;
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined,
    expiresAt: jwtExpiry(body.access_token) ?? now() + lifetimeMs,
  };
}
