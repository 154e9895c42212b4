// The UAA stand-in: password, refresh-token and client-credentials grants, and the tokens it issued.
import crypto from 'node:crypto';
import { send } from './reply.js';

/**
 * @param {object} options
 * @param {import('./reply.js').SimulatorContext} options.context
 * @param {Record<string, string>} options.users username -> password
 * @param {Record<string, string>} options.clients client id -> secret
 */
export function createUaa({ context, users, clients }) {
  const { faults, counters } = context;
  /** @type {Map<string, { exp: number, user: string }>} */
  const accessTokens = new Map();
  /** @type {Map<string, string>} */
  const refreshTokens = new Map();

  /** @param {string} user */
  const issueToken = (user) => {
    const exp = Math.floor(Date.now() / 1000) + faults.tokenLifetimeSeconds;
    const payload = Buffer.from(JSON.stringify({ exp, user_name: user, jti: crypto.randomUUID() })).toString(
      'base64url',
    );
    const access = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.sig`;
    const refresh = `refresh-${crypto.randomUUID()}`;
    accessTokens.set(access, { exp: exp * 1000, user });
    refreshTokens.set(refresh, user);
    return {
      access_token: access,
      token_type: 'bearer',
      refresh_token: refresh,
      expires_in: faults.tokenLifetimeSeconds,
      scope: 'cloud_controller.read',
      jti: 'x',
    };
  };

  /**
   * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
   * @param {string} body the form-encoded request body
   */
  const answerTokenRequest = (req, res, body) => {
    const form = new URLSearchParams(body);
    const grant = form.get('grant_type') ?? '';
    counters.grants[grant] = (counters.grants[grant] ?? 0) + 1;
    if (faults.rejectCredentials)
      return send(res, 401, { error: 'unauthorized', error_description: 'Bad credentials' });
    const basic = req.headers.authorization === `Basic ${Buffer.from('cf:').toString('base64')}`;
    if (grant === 'password') {
      if (!basic) return send(res, 401, { error: 'invalid_client', error_description: 'Bad client credentials' });
      const user = form.get('username') ?? '';
      if (users[user] === undefined || users[user] !== form.get('password'))
        return send(res, 401, { error: 'unauthorized', error_description: 'Bad credentials' });
      return send(res, 200, issueToken(user));
    }
    if (grant === 'refresh_token') {
      const user = refreshTokens.get(form.get('refresh_token') ?? '');
      if (!basic || !user)
        return send(res, 401, { error: 'invalid_token', error_description: 'Invalid refresh token' });
      return send(res, 200, issueToken(user));
    }
    if (grant === 'client_credentials') {
      const id = form.get('client_id') ?? '';
      if (clients[id] === undefined || clients[id] !== form.get('client_secret'))
        return send(res, 401, { error: 'invalid_client', error_description: 'Bad client credentials' });
      const issued = issueToken(id);
      return send(res, 200, { ...issued, refresh_token: undefined });
    }
    return send(res, 400, { error: 'unsupported_grant_type', error_description: `Unsupported grant type: ${grant}` });
  };

  return {
    answerTokenRequest,
    accessTokens,
  };
}
