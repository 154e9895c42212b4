// Router logs from a real OpenSearch 3.x (point in time) and Elasticsearch 7.10.2 (scroll), both
// started from Maven Central jars, into a real PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { ingestIncrement, ingestWindow } from '../../collector/pipeline/ingest.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { FIRST_PAGE, PAGE_BYTES } from '../../collector/sources/router-logs/search.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startTestDatabase } from '../support/database.js';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { runCli, startCli, waitFor } from '../support/cli.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import {
  LOGSEARCH_TEMPLATE,
  emittedAt,
  expectedRow,
  lineDocument,
  logsearchDocument,
  makeRequests,
  rawDocument,
} from '../support/router-docs.js';
import { startSearchNode } from '../support/search-node.js';

const silent = pino({ level: 'silent' });
const START = Date.parse('2026-11-20T22:00:00Z'); // spans three daily indices
const SPAN = 28 * 3600 * 1000;
const COUNT = 26_000;
const PAGE = 2000;
const STRETCH = 5000;
const FAST = { retries: 2, baseDelayMs: 20, maxDelayMs: 50 };

/** @param {number} ms */
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, '.');

for (const flavor of /** @type {const} */ (['opensearch', 'elasticsearch'])) {
  describe(`router logs from ${flavor}`, { timeout: 600_000 }, () => {
    /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
    let search;
    /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
    let db;
    const requests = makeRequests(COUNT, START, SPAN, flavor);
    // Half logsearch documents, the rest gorouter lines where pipelines keep them (message, log,
    // @message), in daily indices by emit time; ROUTER_LOG_FORMAT=auto reads each on its own.
    const shapes = [
      logsearchDocument,
      rawDocument,
      logsearchDocument,
      (/** @type {any} */ r) => lineDocument(r, 'log'),
      logsearchDocument,
      (/** @type {any} */ r) => lineDocument(r, '@message'),
    ];
    const documents = requests.map((r, i) => ({
      index: `logs-app-lab-perf-${dayOf(Date.parse(emittedAt(r)))}`,
      doc: shapes[i % shapes.length](r),
    }));
    const malformed = [
      {
        reason: 'bad_duration',
        doc: {
          ...logsearchDocument(requests[0]),
          rtr: { ...logsearchDocument(requests[0]).rtr, response_time_ms: -5, vcap_request_id: 'x1' },
        },
      },
      { reason: 'not_gorouter', doc: { ...rawDocument(requests[1]), message: 'Exit status 137 (out of memory)' } },
      {
        reason: 'truncated',
        doc: {
          ...rawDocument(requests[2]),
          message: 'shop.apps.example.com - [2026-11-21T01:00:00.000000000Z] "GET /tr',
        },
      },
      {
        reason: 'unknown_format',
        doc: { '@timestamp': emittedAt(requests[3]), '@source': { type: 'RTR' }, '@cf': { app: 'shop' } },
      },
    ];
    const window = { from: new Date(START).toISOString(), to: new Date(START + SPAN + 3600_000).toISOString() };
    const later = makeRequests(500, START + SPAN + 7200_000, 60_000, `${flavor}-later`);
    let laterIndexed = false;
    // Documents that arrive after a first read, indexed by whichever test needs them first (each
    // test can also run alone).
    const indexLater = async () => {
      if (laterIndexed) return;
      laterIndexed = true;
      await search.bulk(`logs-app-lab-perf-${dayOf(START + SPAN + 7200_000)}`, later.map(logsearchDocument));
    };

    /** @param {Record<string, string>} [env] @param {object} [deps] */
    const sourceFor = (env = {}, deps = {}) =>
      createRouterLogSource(loadConfig({ SEARCH_URL: search.url, CF_APPS: 'shop,cart', ...env }), {
        log: silent,
        pageSize: PAGE,
        // A few stretches per window, so that a read that fails half-way resumes from one's end.
        stretchDocs: STRETCH,
        backoff: FAST,
        ...deps,
      });

    before(async () => {
      [search, db] = await Promise.all([startSearchNode(flavor), startTestDatabase()]);
      await migrate(db.pool, silent);
      const template =
        flavor === 'opensearch'
          ? await search.request('PUT', '/_index_template/logs-app', {
              index_patterns: LOGSEARCH_TEMPLATE.index_patterns,
              template: { settings: LOGSEARCH_TEMPLATE.settings, mappings: LOGSEARCH_TEMPLATE.mappings },
            })
          : await search.request('PUT', '/_template/logs-app', LOGSEARCH_TEMPLATE);
      assert.equal(template.status, 200, JSON.stringify(template.body));
      /** @type {Map<string, unknown[]>} */
      const byIndex = new Map();
      for (const { index, doc } of [
        ...documents,
        ...malformed.map((m) => ({ index: `logs-app-lab-perf-${dayOf(START + 3600_000)}`, doc: m.doc })),
      ]) {
        byIndex.set(index, [...(byIndex.get(index) ?? []), doc]);
      }
      // An app log line of the same app: not RTR, so never read.
      byIndex.set('logs-app-lab-perf-2026.11.21', [
        ...(byIndex.get('logs-app-lab-perf-2026.11.21') ?? []),
        {
          '@timestamp': '2026-11-21T03:00:00.000Z',
          '@source': { type: 'APP' },
          '@cf': { app: 'shop' },
          message: 'hello from the app',
        },
      ]);
      for (const [index, docs] of byIndex) await search.bulk(index, docs);
      assert.equal(byIndex.size, 3, 'several daily indices');
    });
    after(async () => {
      await search?.stop();
      await db?.stop();
    });

    const rows = async () =>
      (
        await db.query(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at,
        app_name, app_guid, app_index, status, response_time_ms, gorouter_time_ms, correlation_id, vcap_request_id
      FROM router_requests ORDER BY vcap_request_id`)
      ).rows;
    const expected = () => requests.map(expectedRow).sort((a, b) => a.vcap_request_id.localeCompare(b.vcap_request_id));

    it('reads every well-formed document of the window exactly once, with the right values', async (t) => {
      const source = sourceFor();
      t.after(() => source.close());
      const { pit } = await source.client.server();
      assert.equal(
        pit,
        flavor === 'opensearch' ? 'opensearch' : null,
        'point in time on OpenSearch, scroll on Elasticsearch OSS',
      );
      /** @type {string[]} */
      const warnings = [];
      const result = await ingestWindow(source, window, {
        pool: db.pool,
        warn: (reason) => {
          warnings.push(reason);
        },
      });
      assert.equal(result.documents, COUNT + malformed.length);
      assert.equal(result.records, COUNT);
      assert.equal(result.inserted, COUNT);
      assert.deepEqual(Object.fromEntries(result.skipped), Object.fromEntries(malformed.map((m) => [m.reason, 1])));
      assert.deepEqual(await rows(), expected());
      const whole = (
        await db.query('SELECT count(*)::int AS n FROM router_requests WHERE response_time_resolution_ms = 1')
      ).rows[0].n;
      const wholeExpected = requests.filter((r, i) => i % 2 === 0 && r.responseUs % 1000 === 0).length;
      assert.equal(whole, wholeExpected, 'logsearch times that are whole ms are marked as such');
    });

    it('adds nothing when the same window is ingested again', async (t) => {
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      const source = sourceFor();
      t.after(() => source.close());
      assert.equal((await ingestWindow(source, window, { pool: db.pool })).inserted, COUNT);
      const result = await ingestWindow(source, window, { pool: db.pool });
      assert.equal(result.records, COUNT);
      assert.equal(result.inserted, 0);
      assert.equal((await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n, COUNT);
    });

    it('picks up documents added later through the checkpoint', async (t) => {
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      const source = sourceFor();
      t.after(() => source.close());
      const firstNow = new Date(START + SPAN / 2 + 30_000);
      const first = await ingestIncrement(
        source,
        { now: firstNow, delayMs: 30_000, lookbackMs: SPAN },
        { pool: db.pool },
      );
      const firstHalf = requests.filter((r) => Date.parse(emittedAt(r)) < START + SPAN / 2).length;
      assert.equal(first.inserted, firstHalf);
      assert.equal(
        (await db.query('SELECT position FROM ingest_checkpoints')).rows[0].position,
        new Date(START + SPAN / 2).toISOString(),
      );
      await indexLater();
      const second = await ingestIncrement(
        source,
        { now: new Date(START + SPAN + 7200_000 + 120_000), delayMs: 30_000, lookbackMs: 0 },
        { pool: db.pool },
      );
      assert.equal(second.inserted, COUNT - firstHalf + later.length);
      assert.equal((await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n, COUNT + later.length);
      await db.query('DELETE FROM router_requests WHERE received_at > $1', [
        new Date(START + SPAN + 3600_000).toISOString(),
      ]);
    });

    it('resumes after the server fails mid-window, with nothing lost or doubled', async (t) => {
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      let searches = 0;
      let broken = true;
      const proxy = await startFaultProxy(search.url, ({ url }) => {
        if (!url.startsWith('/_search') && !url.includes('/_search?scroll')) return 'pass';
        searches += 1;
        // Past the first stretch (its pages and the count before them), before the window ends.
        return broken && searches > 6 ? { status: 500, body: '{"error":{"type":"node_failure"}}' } : 'pass';
      });
      t.after(() => proxy.close());
      const source = sourceFor({ SEARCH_URL: proxy.url });
      t.after(() => source.close());
      const now = new Date(Date.parse(window.to) + 30_000);
      const options = { now, delayMs: 30_000, lookbackMs: Date.parse(window.to) - START };
      await assert.rejects(ingestIncrement(source, options, { pool: db.pool }), { reason: 'http_500' });
      const partial = (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
      assert.ok(partial > 0 && partial < COUNT, `some pages were committed before the failure (${partial})`);
      broken = false;
      const resumed = await ingestIncrement(source, options, { pool: db.pool });
      assert.ok(
        resumed.documents !== undefined && resumed.documents < COUNT,
        'the second run started from the checkpoint',
      );
      assert.deepEqual(await rows(), expected());
    });

    it('times out a stalled search and resumes on the next run', async (t) => {
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      let searches = 0;
      let stalled = true;
      const proxy = await startFaultProxy(search.url, ({ url }) => {
        if (!url.startsWith('/_search') && !url.includes('/_search?scroll')) return 'pass';
        searches += 1;
        return stalled && searches > 2 ? 'hang' : 'pass';
      });
      t.after(() => proxy.close());
      const source = sourceFor({ SEARCH_URL: proxy.url }, { timeoutMs: 500 });
      t.after(() => source.close());
      const options = {
        now: new Date(Date.parse(window.to) + 30_000),
        delayMs: 30_000,
        lookbackMs: Date.parse(window.to) - START,
      };
      await assert.rejects(ingestIncrement(source, options, { pool: db.pool }), { reason: 'timeout' });
      stalled = false;
      // The next run (the server answers again), with a timeout a loaded CI machine always meets.
      const next = sourceFor({ SEARCH_URL: proxy.url });
      t.after(() => next.close());
      await ingestIncrement(next, options, { pool: db.pool });
      assert.deepEqual(await rows(), expected());
    });

    if (flavor === 'elasticsearch') {
      it('reads a window again from its last page when a scroll answer is lost (never skips a page)', async (t) => {
        await db.query('TRUNCATE router_requests, ingest_checkpoints');
        let continuations = 0;
        const proxy = await startFaultProxy(search.url, ({ url }) => {
          if (!url.startsWith('/_search/scroll')) return 'pass';
          continuations += 1;
          // The server moves the cursor, the client times out: repeating the request would skip a page.
          return continuations === 2 ? 'lose-answer' : 'pass';
        });
        t.after(() => proxy.close());
        const source = sourceFor({ SEARCH_URL: proxy.url }, { timeoutMs: 1500 });
        t.after(() => source.close());
        /** @type {string[]} */
        const warnings = [];
        await ingestWindow(source, window, { pool: db.pool, warn: (reason) => warnings.push(reason) });
        assert.ok(continuations >= 3, `the scroll went on after the lost answer (${continuations})`);
        assert.ok(warnings.includes('search_context_lost'), `the loss was noticed (${warnings})`);
        assert.deepEqual(await rows(), expected());
      });
    }

    if (flavor === 'opensearch') {
      it('reopens an expired point in time and still reads everything once', async (t) => {
        await db.query('TRUNCATE router_requests, ingest_checkpoints');
        let searches = 0;
        const proxy = await startFaultProxy(search.url, async ({ url }) => {
          if (url === '/_search') {
            searches += 1;
            // Expire every point in time once, after the third page.
            if (searches === 4) await search.request('DELETE', '/_search/point_in_time/_all');
          }
          return /** @type {const} */ ('pass');
        });
        t.after(() => proxy.close());
        const source = sourceFor({ SEARCH_URL: proxy.url });
        t.after(() => source.close());
        /** @type {string[]} */
        const warnings = [];
        await ingestIncrement(
          source,
          { now: new Date(Date.parse(window.to) + 30_000), delayMs: 30_000, lookbackMs: Date.parse(window.to) - START },
          {
            pool: db.pool,
            warn: (reason) => {
              warnings.push(reason);
            },
          },
        );
        assert.ok(warnings.includes('pit_expired'), `expiry noticed (${warnings})`);
        assert.deepEqual(await rows(), expected());
      });
    }

    it('hands each record to `encode` as it maps it: the same records and skipped documents', async (t) => {
      const source = sourceFor();
      t.after(() => source.close());
      /** @param {Map<string, number>} into @param {Map<string, number>} from */
      const add = (into, from) => {
        for (const [reason, n] of from) into.set(reason, (into.get(reason) ?? 0) + n);
      };
      const read = { records: /** @type {unknown[]} */ ([]), skipped: new Map() };
      for await (const page of source.readWindow(window)) {
        assert.equal(page.encoded, undefined);
        read.records.push(...page.records);
        add(read.skipped, page.skipped);
      }
      const handed = { records: /** @type {unknown[]} */ ([]), skipped: new Map(), pages: 0 };
      const encode = (/** @type {Iterable<unknown>} */ records, /** @type {number} */ count) => {
        const before = handed.records.length;
        for (const record of records) handed.records.push(record);
        assert.ok(handed.records.length - before <= count, 'no more records than documents');
        return { data: Buffer.alloc(0), rows: handed.records.length - before };
      };
      for await (const page of source.readWindow(window, { encode })) {
        handed.pages += 1;
        assert.deepEqual(page.records, []);
        assert.ok(page.encoded, 'the page carries what encode returned');
        add(handed.skipped, page.skipped);
      }
      assert.ok(handed.pages > 1, `${handed.pages} pages`);
      assert.equal(read.records.length, COUNT);
      assert.deepEqual(handed.records, read.records);
      assert.deepEqual(
        [...handed.skipped].sort(),
        malformed.map((m) => [m.reason, 1]).sort(),
        'skipped counted while encoding, before the page is handed on',
      );
      assert.deepEqual(handed.skipped, read.skipped);
      // An encoder that stops early would lose the rest of the page: the reader refuses it.
      const stopsEarly = (/** @type {Iterable<unknown>} */ records) => {
        for (const record of records) return { data: Buffer.alloc(0), rows: record ? 1 : 0 };
        return undefined;
      };
      await assert.rejects(async () => {
        for await (const page of source.readWindow(window, { encode: stopsEarly })) assert.ok(page);
      }, /encode must take every record of a page/);
    });

    if (flavor === 'opensearch') {
      it('gives up the page it reads ahead and closes the point in time when the reader stops early', async (t) => {
        await search.request('DELETE', '/_search/point_in_time/_all');
        let searches = 0;
        // Every page after the first never answers (the first search is the window's count):
        // only giving it up lets the reader stop.
        const proxy = await startFaultProxy(search.url, ({ url }) => {
          if (url !== '/_search') return 'pass';
          searches += 1;
          return searches > 2 ? 'hang' : 'pass';
        });
        t.after(() => proxy.close());
        const source = sourceFor({ SEARCH_URL: proxy.url }, { timeoutMs: 600_000 });
        t.after(() => source.close());
        const started = performance.now();
        let pages = 0;
        for await (const page of source.readWindow(window)) {
          pages += 1;
          assert.equal(page.documents, PAGE);
          // Asked for while this caller still holds the first page.
          await waitFor(() => searches === 3, { what: 'the second page asked for' });
          break;
        }
        assert.equal(pages, 1);
        assert.ok(performance.now() - started < 60_000, 'the hanging read-ahead was aborted, not waited for');
        const open = await search.request('GET', '/_search/point_in_time/_all');
        assert.deepEqual(open.body.pits ?? [], [], 'no point in time left open');
      });

      it('sizes its pages by bytes: the first of FIRST_PAGE documents, then about PAGE_BYTES each', async (t) => {
        /** @type {Array<{ size: number, length: number, hits: number }>} */
        const pages = [];
        // The proxy fetches each page itself to see how long the answer is.
        const proxy = await startFaultProxy(search.url, async ({ method, url, body }) => {
          if (url !== '/_search') return 'pass';
          const answer = await fetch(`${search.url}${url}`, {
            method,
            headers: { 'Content-Type': 'application/json' },
            body,
          });
          const text = await answer.text();
          // Pages only, not the window's count (size 0).
          if (JSON.parse(body).size)
            pages.push({ size: JSON.parse(body).size, length: text.length, hits: JSON.parse(text).hits.hits.length });
          return { status: answer.status, body: text };
        });
        t.after(() => proxy.close());
        const source = sourceFor({ SEARCH_URL: proxy.url }, { pageSize: undefined, stretchDocs: undefined });
        t.after(() => source.close());
        let documents = 0;
        for await (const page of source.readWindow(window)) documents += page.documents;
        assert.equal(documents, COUNT + malformed.length);
        assert.equal(pages[0].size, FIRST_PAGE);
        const full = pages.slice(1).filter((p) => p.hits === p.size);
        assert.ok(full.length >= 5, `${pages.length} pages`);
        for (const p of full)
          assert.ok(Math.abs(p.length - PAGE_BYTES) < 0.1 * PAGE_BYTES, `a page of ${p.length} characters`);
      });

      it('is ingested by `paasmon collect` on INGEST_SCHEDULE and counted once in its metrics', async (t) => {
        await db.query('TRUNCATE router_requests, ingest_checkpoints');
        await indexLater();
        const sim = await startCfSimulator({ apps: makeApps(1, 1) });
        t.after(() => sim.close());
        const collector = startCli(['collect'], {
          DATABASE_URL: db.url,
          CF_API: sim.url,
          CF_USERNAME: 'admin',
          CF_PASSWORD: 'admin-secret',
          CF_APPS: 'shop,cart',
          PORT: '0',
          SEARCH_URL: search.url,
          INGEST_SCHEDULE: '* * * * * *',
          INGEST_DELAY: '1s',
          INGEST_LOOKBACK: `${Math.ceil((Date.now() - START) / 3_600_000) + 1}h`,
          // The window's 4 malformed documents are 0.015 %: above this, so router-logs is degraded.
          INGEST_MAX_SKIPPED_RATIO: '0.0001',
        });
        try {
          const port = await waitFor(() => Number(/"port":(\d+),"schedule"/.exec(collector.output.stderr)?.[1]), {
            what: 'collect to listen',
          });
          const all = [...requests, ...later];
          const metrics = await waitFor(
            async () => {
              const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
              const count = Number(
                /^paasmon_router_response_time_seconds_count\{app="shop",status_class="2xx"\} (\d+)/m.exec(text)?.[1] ??
                  0,
              );
              return count === all.filter((r) => r.app === 'shop' && r.status < 300).length ? text : undefined;
            },
            { timeoutMs: 60_000, what: 'router requests in /metrics' },
          );
          await new Promise((r) => setTimeout(r, 2500)); // more runs re-read the boundary: counts must not grow
          const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          for (const app of ['shop', 'cart']) {
            for (const [cls, test] of /** @type {const} */ ([
              ['2xx', (/** @type {number} */ s) => s < 300],
              ['4xx', (/** @type {number} */ s) => s >= 400 && s < 500],
              ['5xx', (/** @type {number} */ s) => s >= 500],
            ])) {
              const expected = all.filter((r) => r.app === app && test(r.status)).length;
              assert.match(
                text,
                new RegExp(`^paasmon_router_requests_total\\{app="${app}",status_class="${cls}"\\} ${expected}$`, 'm'),
              );
            }
          }
          // Histogram buckets against an independent count of response times <= 10 ms.
          const fast = all.filter((r) => r.app === 'shop' && r.status < 300 && r.responseUs <= 10_000).length;
          assert.match(
            metrics,
            new RegExp(
              `^paasmon_router_response_time_seconds_bucket\\{le="0.01",app="shop",status_class="2xx"\\} ${fast}$`,
              'm',
            ),
          );
          const lag = Number(/^paasmon_router_ingest_lag_seconds (\S+)$/m.exec(text)?.[1]);
          assert.ok(lag >= 1 && lag < 5, `ingest lag ${lag} s`);
          const health = /** @type {any} */ (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json());
          assert.equal(health.sources['router-logs'].status, 'degraded');
          assert.match(health.sources['router-logs'].lastError, /4 records skipped .* most for \w+ \(1\), e\.g\. /);
          for (const { reason } of malformed)
            assert.match(text, new RegExp(`^paasmon_router_skipped_records_total\\{reason="${reason}"\\} 1$`, 'm'));
        } finally {
          collector.child.kill('SIGTERM');
          await collector.exited;
        }
      });
    }

    if (flavor === 'opensearch') {
      it('`paasmon ingest` fails past --max-skipped-ratio, naming the reason, a document and the fields', async () => {
        await db.query('TRUNCATE router_requests, ingest_checkpoints');
        const env = { DATABASE_URL: db.url, SEARCH_URL: search.url, CF_APPS: 'shop,cart' };
        const args = ['ingest', '--from', window.from, '--to', window.to];
        const strict = await runCli([...args, '--max-skipped-ratio', '0.0001'], env, { timeoutMs: 120_000 });
        assert.equal(strict.code, 1, strict.stderr);
        assert.match(strict.stdout, new RegExp(`${COUNT} router requests, ${COUNT} new rows`));
        assert.match(
          strict.stderr,
          /^paasmon: ingest: 4 records skipped \(0\.02 % > 0\.01 %\); most for (bad_duration|not_gorouter|truncated|unknown_format) \(1\), e\.g\. logs-app-lab-perf-\S+\/\S+ \(looked in @raw, [^)]*log\) \(--max-skipped-ratio\)$/m,
        );
        // The default (1 %) lets 4 of 26,004 pass; the rows are stored either way.
        const lenient = await runCli(args, env, { timeoutMs: 120_000 });
        assert.equal(lenient.code, 0, lenient.stderr);
        assert.deepEqual(await rows(), expected());
      });
    }

    it('sends basic or API-key credentials and reports refused ones clearly', async (t) => {
      /** @type {Array<string | undefined>} */
      const seen = [];
      const proxy = await startFaultProxy(search.url, ({ headers }) => {
        seen.push(headers.authorization);
        return headers.authorization === 'ApiKey wrong-key'
          ? {
              status: 401,
              body: '{"error":{"type":"security_exception","reason":"unable to authenticate"},"status":401}',
            }
          : 'pass';
      });
      t.after(() => proxy.close());
      const basic = createRouterLogSource(
        loadConfig({ SEARCH_URL: proxy.url, SEARCH_USERNAME: 'reader', SEARCH_PASSWORD: 'pw', CF_APPS: 'shop' }),
        { log: silent, backoff: FAST },
      );
      await basic.client.server();
      assert.equal(seen.at(-1), `Basic ${Buffer.from('reader:pw').toString('base64')}`);
      const refused = createRouterLogSource(
        loadConfig({ SEARCH_URL: proxy.url, SEARCH_API_KEY: 'wrong-key', CF_APPS: 'shop' }),
        { log: silent, backoff: FAST },
      );
      await assert.rejects(ingestWindow(refused, window, { pool: db.pool }), {
        reason: 'auth',
        message: 'search: GET / answered 401 security_exception',
      });
      assert.equal(seen.at(-1), 'ApiKey wrong-key');
    });

    it('reports a missing index clearly', async (t) => {
      const source = sourceFor({ SEARCH_INDEX: 'logs-app-deleted-*' });
      t.after(() => source.close());
      await assert.rejects(ingestWindow(source, window, { pool: db.pool }), {
        reason: 'index_not_found',
        message: 'search: no index matches SEARCH_INDEX=logs-app-deleted-*',
      });
    });
  });
}
