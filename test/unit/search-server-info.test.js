import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { loadConfig } from '../../collector/config/index.js';
import { createSearchClient } from '../../collector/sources/router-logs/search.js';

/**
 * A search server that only says who it is (and, as X-Pack does, answers /_xpack).
 * @param {Record<string, unknown>} version @param {boolean} xpack
 */
async function serverInfoOf(version, xpack) {
  const server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/') res.end(JSON.stringify({ version }));
    else if (req.url === '/_xpack' && xpack) res.end('{"features":{}}');
    else res.writeHead(400).end('{"error":{"type":"illegal_argument_exception"}}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const url = `http://127.0.0.1:${port}`;
  const client = createSearchClient({ ...loadConfig({ SEARCH_URL: url }).search, url });
  try {
    return await client.server();
  } finally {
    client.close();
    server.close();
  }
}

describe('which way a search server is read', () => {
  it('by point in time only where it has _shard_doc: OpenSearch 3.3, Elasticsearch 7.12 with X-Pack', async () => {
    const cases = [
      [{ distribution: 'opensearch', number: '2.19.1' }, false, null],
      [{ distribution: 'opensearch', number: '3.2.0' }, false, null],
      [{ distribution: 'opensearch', number: '3.3.0' }, false, 'opensearch'],
      [{ distribution: 'opensearch', number: '3.5.0' }, false, 'opensearch'],
      [{ number: '7.10.2' }, false, null],
      [{ number: '7.11.2' }, true, null],
      [{ number: '7.12.0' }, true, 'elasticsearch'],
      [{ number: '7.17.9' }, false, null],
      [{ number: '8.15.0' }, true, 'elasticsearch'],
    ];
    for (const [version, xpack, pit] of cases) {
      const info = await serverInfoOf(/** @type {any} */ (version), /** @type {boolean} */ (xpack));
      assert.equal(info.pit, pit, `${JSON.stringify(version)}, X-Pack ${xpack}`);
    }
  });
});
