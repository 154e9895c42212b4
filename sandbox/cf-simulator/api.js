// The Cloud Controller API: bearer-token check and the switched-on faults first, then the v3 and v2 routes.
import { send, v3Error } from './reply.js';
import { answerV2 } from './v2-routes.js';
import { answerV3 } from './v3-routes.js';

/**
 * @typedef {object} Refusal
 * @property {number} status
 * @property {unknown} body
 * @property {Record<string, string>} [headers]
 */

/**
 * The authentication error or switched-on fault this call gets (each fault counts down), or undefined.
 * @param {import('./fixtures.js').Faults} faults
 * @param {Map<string, { exp: number }>} accessTokens
 * @param {import('node:http').IncomingMessage} req
 * @param {string} reset X-RateLimit-Reset
 * @returns {Refusal | undefined}
 */
function refusalFor(faults, accessTokens, req, reset) {
  const auth = req.headers.authorization ?? '';
  const bearer = auth.replace(/^bearer /i, '');
  if (!auth) return { status: 401, body: v3Error('CF-NotAuthenticated', 10002, 'Authentication error') };
  const held = accessTokens.get(bearer);
  if (faults.invalidAuthTokenOnce > 0) {
    faults.invalidAuthTokenOnce -= 1;
    accessTokens.delete(bearer);
    return { status: 401, body: v3Error('CF-InvalidAuthToken', 1000, 'Invalid Auth Token') };
  }
  if (!held || held.exp <= Date.now())
    return { status: 401, body: v3Error('CF-InvalidAuthToken', 1000, 'Invalid Auth Token') };
  if (faults.rateLimited > 0) {
    faults.rateLimited -= 1;
    const headers = {
      'Content-Type': 'text/plain',
      'Retry-After': String(faults.retryAfterSeconds),
      'X-RateLimit-Limit': '20000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': reset,
    };
    return { status: 429, body: v3Error('CF-RateLimitExceeded', 10013, 'Rate Limit Exceeded'), headers };
  }
  if (faults.serverErrors > 0) {
    faults.serverErrors -= 1;
    return { status: 502, body: { error: 'bad gateway' } };
  }
  return undefined;
}

/**
 * @param {import('./reply.js').SimulatorContext} context
 * @param {Map<string, { exp: number }>} accessTokens
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {URL} url
 */
export async function answerApi(context, accessTokens, req, res, url) {
  const reset = String(Math.floor(Date.now() / 1000) + 3600);
  const refusal = refusalFor(context.faults, accessTokens, req, reset);
  if (refusal) return send(res, refusal.status, refusal.body, refusal.headers);
  const rate = { 'X-RateLimit-Limit': '20000', 'X-RateLimit-Remaining': '19000', 'X-RateLimit-Reset': reset };
  if (await answerV3(context, res, url, rate)) return;
  if (answerV2(context, res, url)) return;
  send(res, 404, v3Error('CF-NotFound', 10000, 'Unknown request'));
}
