import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { createHttp } from '../../collector/net/http-client.js';

const FAST = { retries: 2, baseDelayMs: 1, maxDelayMs: 1 };

/** A port nothing listens on (just closed). */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return port;
}

describe('http client failures', () => {
  it('names the setting and the host of a service that refuses connections, after the retries', async () => {
    const port = await closedPort();
    /** @type {string[]} */
    const retries = [];
    const http = createHttp({
      timeoutMs: 2000,
      skipSslValidation: false,
      backoff: FAST,
      setting: 'CF_API',
      onRetry: (e) => retries.push(e.reason),
    });
    await assert.rejects(http.send({ url: `http://127.0.0.1:${port}/v3/apps` }), {
      message: `GET /v3/apps failed: ECONNREFUSED (CF_API: 127.0.0.1:${port})`,
      reason: 'network',
    });
    assert.deepEqual(retries, ['network', 'network']);
    http.close();
  });

  it('does not retry a host name that does not resolve (ENOTFOUND)', async () => {
    /** @type {string[]} */
    const retries = [];
    const http = createHttp({
      timeoutMs: 5000,
      skipSslValidation: false,
      backoff: FAST,
      setting: 'SEARCH_URL',
      onRetry: (e) => retries.push(e.reason),
    });
    await assert.rejects(http.send({ url: 'http://paasmon-test.invalid/' }), {
      message: 'GET / failed: ENOTFOUND (SEARCH_URL: paasmon-test.invalid)',
    });
    assert.deepEqual(retries, []);
    http.close();
  });
});
