// Each page after the first asks the search server for a slice of the window (from the last sort
// value), so the server walks only that slice: still every document once, in order, with documents
// sharing a millisecond across pages, empty stretches of the window, and date vs date_nanos mappings.
// OpenSearch only: the point-in-time path (a scroll keeps its own cursor).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { byTime } from '../../collector/sources/router-logs/search-pages.js';
import { LOGSEARCH_TEMPLATE, logsearchDocument, makeRequests, nanos } from '../support/router-docs.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { startSearchNode } from '../support/search-node.js';

const silent = pino({ level: 'silent' });
const START = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;

describe('a window read in slices from opensearch', { timeout: 600_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
  let search;
  // 250 documents in one millisecond (more than two pages), an hour of 600, five empty hours, then
  // an hour of 300; a third of them in an index that maps @timestamp as date_nanos.
  const tied = makeRequests(250, START + 1000, 0, 'tied').map((r) => ({ ...r, receivedUs: (START + 1000) * 1000 }));
  const early = makeRequests(600, START + 2000, HOUR, 'early');
  const late = makeRequests(300, START + 7 * HOUR, HOUR, 'late');
  const all = [...tied, ...early, ...late];
  // Offsets across the whole millisecond: a sort value rounded rather than cut to the millisecond would
  // start a slice after documents of the page's last millisecond not read yet.
  const offsetUs = new Map(all.map((r, i) => [r, (i * 397) % 1000]));
  const emitUs = (/** @type {(typeof all)[number]} */ r) => r.receivedUs + (offsetUs.get(r) ?? 0);

  before(async () => {
    search = await startSearchNode('opensearch');
    const { mappings, settings } = LOGSEARCH_TEMPLATE;
    for (const [index, type] of [
      ['logs-app-nanos-2026.11.20', 'date_nanos'],
      ['logs-app-millis-2026.11.20', 'date'],
    ]) {
      const properties = { ...mappings.properties, '@timestamp': { type } };
      const created = await search.request('PUT', `/${index}`, { settings, mappings: { properties } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
    }
    await search.bulk(
      'logs-app-nanos-2026.11.20',
      all.filter((_, i) => i % 3 === 0).map((r) => ({ ...logsearchDocument(r), '@timestamp': nanos(emitUs(r)) })),
    );
    await search.bulk(
      'logs-app-millis-2026.11.20',
      all
        .filter((_, i) => i % 3 !== 0)
        .map((r) => ({ ...logsearchDocument(r), '@timestamp': new Date(Math.floor(emitUs(r) / 1000)).toISOString() })),
    );
  });
  after(async () => {
    await search?.stop();
  });

  it('reads every document once, in order, asking for a slice of the window after the first page', async (t) => {
    /** @type {any[]} */
    const asked = [];
    const proxy = await startFaultProxy(search.url, ({ url, body }) => {
      if (url === '/_search') asked.push(JSON.parse(body));
      return 'pass';
    });
    t.after(() => proxy.close());
    const source = createRouterLogSource(
      loadConfig({ SEARCH_URL: proxy.url, SEARCH_INDEX: 'logs-app-*', CF_APPS: 'shop,cart' }),
      { log: silent, pageSize: 100, backoff: { retries: 1, baseDelayMs: 10, maxDelayMs: 10 } },
    );
    t.after(() => source.close());
    /** @type {string[]} */
    const read = [];
    let lastPosition = '';
    const window = { from: new Date(START).toISOString(), to: new Date(START + 9 * HOUR).toISOString() };
    for await (const page of source.readWindow(window)) {
      for (const record of page.records) read.push(/** @type {any} */ (record).vcapRequestId);
      const position = page.lastTimestamp ?? '';
      assert.ok(position >= lastPosition, `${position} after ${lastPosition}`);
      lastPosition = position;
    }
    assert.equal(read.length, all.length);
    assert.equal(new Set(read).size, all.length, 'no document twice');
    assert.deepEqual(new Set(read), new Set(all.map((r) => r.vcapRequestId)));
    const sliced = asked.slice(1).map((body) => body.query.bool.filter[1]?.range?.['@timestamp']);
    assert.ok(asked.length > 12, `${asked.length} pages`);
    assert.equal(asked[0].query.bool.filter[1]?.range, undefined, 'the first page asks for the whole window');
    for (const range of sliced) {
      assert.equal(range?.format, 'epoch_millis', JSON.stringify(asked.map((b) => b.query)));
      assert.ok(range.gte >= START && range.gte < START + 9 * HOUR);
    }
    assert.ok(
      sliced.some((range) => range.lt !== undefined),
      'some slice ends before the window does',
    );
  });
  it('cuts date_nanos sort values to their millisecond, which the slices rely on', async () => {
    const answer = await search.request('POST', '/logs-app-nanos-2026.11.20/_search', {
      size: 1000,
      query: { range: { '@timestamp': { gte: START + 1000, lt: START + 1001, format: 'epoch_millis' } } },
      sort: [byTime('@timestamp')],
    });
    const sorts = answer.body.hits.hits.map((/** @type {any} */ hit) => hit.sort[0]);
    // The tied documents of the nanos index lie all over their millisecond, half of them past its middle.
    assert.equal(sorts.length, tied.filter((r) => all.indexOf(r) % 3 === 0).length);
    assert.deepEqual([...new Set(sorts)], [START + 1000]);
  });
});
