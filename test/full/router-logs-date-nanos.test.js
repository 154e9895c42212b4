// Router logs from an index that maps @timestamp as date_nanos (its sort values are nanoseconds),
// beside one that maps it as date, in a real OpenSearch (point in time) and Elasticsearch 7.10.2 (scroll).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { ingestIncrement } from '../../collector/pipeline/ingest.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
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

    it('reads every document stretch by stretch and checkpoints each stretch’s end in milliseconds', async () => {
      const source = createRouterLogSource(
        loadConfig({ SEARCH_URL: search.url, SEARCH_INDEX: 'logs-app-*', CF_APPS: 'shop,cart' }),
        { log: silent, pageSize: 100, stretchDocs: 250, backoff: { retries: 1, baseDelayMs: 10, maxDelayMs: 10 } },
      );
      const writer = createPageWriter(db.pool);
      /** @type {Array<{ position: string, before: number }>} */
      const checkpoints = [];
      let written = 0;
      /** @type {import('../../core/types.js').PageWriter} */
      const writePage = (page) => {
        written += page.encoded?.rows ?? page.records.length;
        if (page.checkpoint) checkpoints.push({ position: page.checkpoint.position, before: written });
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

        // A position at the end of each stretch (by scroll: of each page) and the window's end, in
        // order, to the millisecond. When one is committed, every document before it has been written;
        // after a stretch none after it, after a scroll page only some of its millisecond.
        const positions = checkpoints.map((c) => c.position);
        assert.ok(positions.length >= 4, `${positions.length} checkpoints`);
        assert.equal(positions.at(-1), now.toISOString());
        assert.deepEqual([...positions].sort(), positions);
        /** @param {number} ms */
        const emittedBefore = (ms) => requests.filter((r) => r.receivedUs + r.responseUs < ms * 1000).length;
        for (const { position, before } of checkpoints.slice(0, -1)) {
          assert.match(position, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          const ms = Date.parse(position);
          if (flavor === 'opensearch') assert.equal(before, emittedBefore(ms), `documents before ${position}`);
          else
            assert.ok(before >= emittedBefore(ms) && before <= emittedBefore(ms + 1), `${before} before ${position}`);
        }
      } finally {
        await source.close();
      }
    });
  });
}
