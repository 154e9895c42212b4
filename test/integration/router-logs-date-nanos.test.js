// Router logs from an index that maps @timestamp as date_nanos (its sort values are nanoseconds),
// beside one that maps it as date, in a real OpenSearch (point in time) and Elasticsearch 7.10.2 (scroll).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { ingestIncrement } from '../../collector/pipeline/ingest.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { migrate } from '../../exporters/postgres/migrate.js';
import { createPageWriter } from '../../exporters/postgres/page-writer.js';
import { startTestDatabase } from '../support/database.js';
import { LOGSEARCH_TEMPLATE, logsearchDocument, makeRequests, nanos } from '../support/router-docs.js';
import { startSearchNode } from '../support/search-node.js';

const silent = pino({ level: 'silent' });
const START = Date.parse('2026-11-20T10:00:00Z');
const SPAN = 3600_000;
const COUNT = 900;

for (const flavor of /** @type {const} */ (['opensearch', 'elasticsearch'])) {
  describe(`date_nanos @timestamp in ${flavor}`, { timeout: 600_000 }, () => {
    /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
    let search;
    /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
    let db;
    const requests = makeRequests(COUNT, START, SPAN, `${flavor}-nanos`);

    before(async () => {
      [search, db] = await Promise.all([startSearchNode(flavor), startTestDatabase()]);
      await migrate(db.pool, silent);
      const { mappings, settings } = LOGSEARCH_TEMPLATE;
      for (const [index, type] of [
        ['logs-app-nanos-2026.11.20', 'date_nanos'],
        ['logs-app-millis-2026.11.20', 'date'],
      ]) {
        const properties = { ...mappings.properties, '@timestamp': { type } };
        const created = await search.request('PUT', `/${index}`, { settings, mappings: { properties } });
        assert.equal(created.status, 200, JSON.stringify(created.body));
      }
      // Two thirds in the date_nanos index, with nanosecond emit times; the rest in the date index.
      const nanosDocs = requests
        .filter((_, i) => i % 3 !== 0)
        .map((r) => ({ ...logsearchDocument(r), '@timestamp': nanos(r.receivedUs + r.responseUs) }));
      await search.bulk('logs-app-nanos-2026.11.20', nanosDocs);
      await search.bulk('logs-app-millis-2026.11.20', requests.filter((_, i) => i % 3 === 0).map(logsearchDocument));
    });
    after(async () => {
      await search?.stop();
      await db?.stop();
    });

    it('reads every document page by page and checkpoints each page in milliseconds', async () => {
      const source = createRouterLogSource(
        loadConfig({ SEARCH_URL: search.url, SEARCH_INDEX: 'logs-app-*', CF_APPS: 'shop,cart' }),
        { log: silent, pageSize: 100, backoff: { retries: 1, baseDelayMs: 10, maxDelayMs: 10 } },
      );
      const writer = createPageWriter(db.pool);
      /** @type {string[]} */
      const positions = [];
      /** @type {import('../../core/types.js').PageWriter} */
      const writePage = (page) => {
        if (page.checkpoint) positions.push(page.checkpoint.position);
        return writer(page);
      };
      try {
        const now = new Date(START + SPAN + 7200_000);
        const result = await ingestIncrement(
          source,
          { now, delayMs: 0, lookbackMs: SPAN + 3 * 3600_000 },
          { pool: db.pool, writePage },
        );
        assert.equal(result.records, COUNT);
        assert.equal(result.inserted, COUNT);
        assert.equal((await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n, COUNT);

        // One position per page (and the window's end): each the emit time of a page's last
        // document, to the millisecond, in order.
        assert.equal(positions.length, COUNT / 100 + 1);
        assert.equal(positions.at(-1), now.toISOString());
        const emitted = new Set(
          requests.map((r) => new Date(Math.floor((r.receivedUs + r.responseUs) / 1000)).toISOString()),
        );
        for (const position of positions.slice(0, -1)) assert.ok(emitted.has(position), `${position} is no emit time`);
        assert.deepEqual([...positions].sort(), positions);
        assert.equal(positions.at(-2), [...emitted].sort().at(-1));
      } finally {
        await source.close();
      }
    });
  });
}
