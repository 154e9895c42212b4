import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTokenProvider, jwtExpiry } from '../../collector/sources/cloud-controller/uaa.js';

const jwt = (/** @type {object} */ claims) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

describe('jwtExpiry', () => {
  it('reads exp (seconds) as epoch milliseconds', () =>
    assert.equal(jwtExpiry(jwt({ exp: 1_800_000_000 })), 1_800_000_000_000));
  it('is undefined for opaque tokens', () => {
    assert.equal(jwtExpiry('opaque-token'), undefined);
    assert.equal(jwtExpiry('a.!!!.c'), undefined);
  });
});

describe('token provider', () => {
  it('refreshes when under a minute remains, and sends the cf client with an empty secret', async () => {
    let clock = 1_000_000_000_000;
    /** @type {Array<{ headers?: Record<string, string>, data?: unknown }>} */
    const sent = [];
    const send = async (/** @type {any} */ req) => {
      sent.push(req);
      return {
        status: 200,
        headers: {},
        data: { access_token: jwt({ exp: clock / 1000 + 1200 }), refresh_token: `r${sent.length}`, expires_in: 1200 },
      };
    };
    const tokens = createTokenProvider({
      tokenUrl: 'http://uaa/oauth/token',
      credentials: { username: 'u', password: 'p w' },
      send,
      now: () => clock,
    });
    const first = await tokens.get();
    assert.equal(await tokens.get(), first);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers?.Authorization, 'Basic Y2Y6');
    assert.equal(sent[0].data, 'grant_type=password&username=u&password=p+w');
    clock += 1141_000; // 59 s left
    await tokens.get();
    assert.equal(sent.length, 2);
    assert.equal(sent[1].data, 'grant_type=refresh_token&refresh_token=r1');
  });

  it('fails with the UAA error when the credentials are refused', async () => {
    const send = async () => ({
      status: 401,
      headers: {},
      data: { error: 'unauthorized', error_description: 'Bad credentials' },
    });
    const tokens = createTokenProvider({
      tokenUrl: 'http://uaa/oauth/token',
      credentials: { username: 'u', password: 'bad' },
      send,
    });
    await assert.rejects(tokens.get(), {
      name: 'HttpError',
      reason: 'auth',
      message: 'UAA refused the password grant (unauthorized: Bad credentials)',
    });
  });
});
