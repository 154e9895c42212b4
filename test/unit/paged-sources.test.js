// The paged-source contract (core/types.js PagedSource): search, file, stdin and Log Cache each
// yield pages of one shape (kind, records or encoded rows, skips by reason code, items read, the
// position after the page), and none of them writes anything.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../collector/config/index.js';
import { createLogCacheAppSource } from '../../collector/sources/log-cache/index.js';
import { createLineSource, createRouterLogFileSource } from '../../collector/sources/router-logs/file.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { ALL_REASONS } from '../../core/reason-codes.js';
import { gorouterLine, makeRequests, rawDocument } from '../support/router-docs.js';

const KINDS = new Set(['router_request', 'instance_sample']);
const KEYS = new Set(['kind', 'records', 'encoded', 'skipped', 'examples', 'read', 'position', 'firstLine']);
const requests = makeRequests(6, Date.parse('2026-01-01T00:00:00Z'), 60_000);

/** @param {AsyncIterable<import('../../core/types.js').SourcePage>} pages */
async function collect(pages) {
  const all = [];
  for await (const page of pages) all.push(page);
  return all;
}

/** Asserts the page shape every paged source shares. @param {import('../../core/types.js').SourcePage[]} pages */
function assertPages(pages) {
  assert.ok(pages.length > 0, 'at least one page');
  for (const page of pages) {
    for (const key of Object.keys(page)) assert.ok(KEYS.has(key), `unknown page field ${key}`);
    assert.ok(KINDS.has(page.kind), page.kind);
    assert.ok(Array.isArray(page.records));
    for (const record of page.records) assert.equal(/** @type {any} */ (record).kind, page.kind);
    assert.ok(page.skipped instanceof Map);
    for (const [reason, n] of page.skipped) {
      assert.ok(ALL_REASONS.has(reason), `reason ${reason} is in core/reason-codes.js`);
      assert.ok(Number.isInteger(n) && n > 0);
    }
    assert.ok(Number.isInteger(page.read) && page.read >= 0);
    assert.ok(page.position === undefined || typeof page.position === 'string');
  }
  assert.equal(typeof pages.at(-1)?.position, 'string', 'the last page says where the read ended');
}

describe('paged sources yield one page shape', () => {
  /** @type {string} */
  let dir;
  const lines = [...requests.map(gorouterLine), 'not a router line', ''];
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-pages-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('file: pages of router requests with the byte position, skips by reason', async () => {
    const file = path.join(dir, 'router.log');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const source = createRouterLogFileSource(file, { appName: 'shop', correlationHeader: 'X-Correlation-Id' });
    const pages = await collect(source.readPages(undefined));
    assertPages(pages);
    assert.equal(pages.flatMap((p) => p.records).length, requests.length);
    assert.deepEqual(Object.fromEntries(pages[0].skipped), { not_gorouter: 1 });
    assert.match(/** @type {string} */ (pages.at(-1)?.position), /^\d+:\d+:/);
    assert.deepEqual(await collect(source.readPages(pages.at(-1)?.position)), [], 'nothing after the end');
  });

  it('stdin: the same pages, without a position to keep', async () => {
    const source = createLineSource(Readable.from([lines.join('\n')]), {
      appName: 'shop',
      correlationHeader: 'X-Correlation-Id',
    });
    const pages = await collect(source.readPages(undefined));
    for (const page of pages) assert.equal(page.position, undefined);
    assertPages([...pages, { ...pages[0], records: [], position: 'end' }]);
    assert.equal(pages.flatMap((p) => p.records).length, requests.length);
  });

  it('Log Cache: instance samples ride before the router rows of the same read', async () => {
    const guid = requests[0].appGuid;
    const ns = (/** @type {number} */ ms) => String(BigInt(ms) * 1_000_000n);
    const at = Date.parse('2026-01-01T00:00:30Z');
    const batch = [
      ...requests.slice(0, 3).map((r, i) => ({
        timestamp: ns(at + i),
        source_id: guid,
        tags: { source_type: 'RTR' },
        log: { payload: Buffer.from(gorouterLine(r)).toString('base64'), type: 'OUT' },
      })),
      {
        timestamp: ns(at + 5),
        source_id: guid,
        instance_id: '0',
        gauge: { metrics: { cpu: { unit: 'percentage', value: 12 } } },
      },
      { timestamp: ns(at + 6), source_id: guid, tags: { source_type: 'APP/PROC/WEB' }, log: { payload: 'aGk=' } },
    ];
    const get = async () => ({ envelopes: { batch } });
    const now = new Date(at + 60_000);
    const source = createLogCacheAppSource(
      { guid, name: 'shop' },
      { get, baseUrl: 'http://lc', now, lookbackMs: 120_000 },
    );
    const pages = await collect(source.readPages(undefined));
    assertPages(pages);
    assert.deepEqual(
      pages.map((p) => [p.kind, p.records.length, p.position !== undefined]),
      [
        ['instance_sample', 1, false],
        ['router_request', 3, true],
        ['router_request', 0, true],
      ],
    );
    assert.equal(source.checkpointKey, `log-cache:${guid}`);
  });

  it('search: pages of mapped documents (or encoded rows) with the last sort timestamp', async (t) => {
    const hits = requests.map((r, i) => ({
      _index: 'logs',
      _id: String(i),
      _source: rawDocument(r),
      sort: [Date.parse(rawDocument(r)['@timestamp'])],
    }));
    hits.push({
      _index: 'logs',
      _id: 'bad',
      _source: /** @type {any} */ ({ message: 'hello' }),
      sort: [hits.at(-1)?.sort[0] ?? 0],
    });
    // A search server of before points in time: one scroll page holds the whole window.
    const server = http.createServer((req, res) => {
      req.resume();
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET') res.end(JSON.stringify({ version: { number: '7.9.0' } }));
      else if (req.method === 'DELETE') res.end('{}');
      else res.end(JSON.stringify({ _scroll_id: 's', hits: { total: { value: hits.length }, hits } }));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    t.after(() => server.close());
    const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
    const config = loadConfig({ SEARCH_URL: `http://127.0.0.1:${port}` });
    const source = createRouterLogSource(config);
    t.after(() => source.close());
    const window = { until: '2026-01-01T01:00:00.000Z' };
    const pages = await collect(source.readPages('2026-01-01T00:00:00.000Z', window));
    assertPages(pages);
    assert.equal(pages.flatMap((p) => p.records).length, requests.length);
    assert.equal(pages.at(-1)?.position, window.until, 'the last page reaches the end of the window');
    assert.equal(pages[0].read, hits.length);
    /** @type {any[]} */
    const handed = [];
    const encode = (/** @type {string} */ kind, /** @type {Iterable<unknown>} */ records) => {
      for (const record of records) handed.push([kind, record]);
      return { data: Buffer.alloc(0), rows: handed.length };
    };
    const encoded = await collect(source.readPages('2026-01-01T00:00:00.000Z', { ...window, encode }));
    assertPages(encoded);
    assert.equal(encoded[0].encoded?.rows, requests.length);
    assert.ok(handed.every(([kind]) => kind === 'router_request'));
  });
});
