// Router logs spread over several indices under one pattern (rollover indices, two index families)
// in a real OpenSearch, the i-th document of each at the same millisecond. OpenSearch numbers
// `_shard_doc` by a shard's number within its index, so shard 0 of every index ties: a read paged by
// `_shard_doc` alone skips the documents of one index that tie with the last of a page from another.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { ingestWindow } from '../../collector/pipeline/ingest.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { LOGSEARCH_TEMPLATE, logsearchDocument, makeRequests } from '../support/router-docs.js';
import { startSearchNode } from '../support/search-node.js';

const silent = pino({ level: 'silent' });
const START = Date.parse('2026-11-20T10:00:00Z');
const SPAN = 600_000;
const INDICES = 3;
const PER_INDEX = 700;

describe('router logs from several indices under one pattern', { timeout: 600_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
  let search;
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  // The i-th document of every index carries the same @timestamp.
  const times = makeRequests(PER_INDEX, START, SPAN, 'times').map((r) => logsearchDocument(r)['@timestamp']);
  const perIndex = Array.from({ length: INDICES }, (_, k) => makeRequests(PER_INDEX, START, SPAN, `index-${k}`));

  before(async () => {
    [search, db] = await Promise.all([startSearchNode('opensearch'), startTestDatabase()]);
    await migrate(db.pool, silent);
    const { mappings, settings } = LOGSEARCH_TEMPLATE;
    for (const [k, requests] of perIndex.entries()) {
      const index = `logs-app-shared-00000${k + 1}`;
      const created = await search.request('PUT', `/${index}`, { settings, mappings });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      await search.bulk(
        index,
        requests.map((r, i) => ({ ...logsearchDocument(r), '@timestamp': times[i] })),
      );
    }
  });
  after(async () => {
    await search?.stop();
    await db?.stop();
  });

  for (const pageSize of [97, 250]) {
    it(`reads every document once in pages of ${pageSize}`, async (t) => {
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      const source = createRouterLogSource(
        loadConfig({ SEARCH_URL: search.url, SEARCH_INDEX: 'logs-app-shared-*', CF_APPS: 'shop,cart' }),
        { log: silent, pageSize, stretchDocs: 600, backoff: { retries: 1, baseDelayMs: 10, maxDelayMs: 10 } },
      );
      t.after(() => source.close());
      const window = {
        from: new Date(START - 60_000).toISOString(),
        to: new Date(START + SPAN + 60_000).toISOString(),
      };
      const result = await ingestWindow(source, window, { pool: db.pool });
      assert.equal(result.documents, INDICES * PER_INDEX);
      assert.equal(result.inserted, INDICES * PER_INDEX);
      const stored = await db.query('SELECT vcap_request_id FROM router_requests ORDER BY vcap_request_id');
      const expected = perIndex
        .flat()
        .map((r) => r.vcapRequestId)
        .sort();
      assert.deepEqual(
        stored.rows.map((r) => r.vcap_request_id),
        expected,
      );
    });
  }
});
