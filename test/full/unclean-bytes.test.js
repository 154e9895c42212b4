// Router records carrying a 0x00 byte and bytes that are not UTF-8 (or a lone UTF-16 surrogate, the
// form such text takes in JSON) from each source into a real PostgreSQL: a file, a search page (a
// real OpenSearch), a syslog drain message and a Log Cache envelope. Every other record of the page
// is stored, the odd one stored with U+FFFD in place of what PostgreSQL refuses, the checkpoint
// moves on. Then the skipped ratio of one source: a burst makes it degraded, clean data ok again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { loadgenRowEncoder } from '../../exporters/postgres/sink/loadgen-rows.js';
import { runCli, waitFor } from '../support/cli.js';
import { collectEnv, startCollect } from '../support/collect.js';
import { startTestDatabase } from '../support/database.js';
import { startLogCacheStandin } from '../support/log-cache-standin.js';
import {
  LOGSEARCH_TEMPLATE,
  emittedAt,
  gorouterLine,
  logsearchDocument,
  makeRequests,
  rawDocument,
} from '../support/router-docs.js';
import { startSearchNode } from '../support/search-node.js';
import { logMessage, postUntilAccepted, rtrEnvelope } from '../support/syslog-agent-standin.js';

const TOKEN = 'drain-token-0123456789abcdef';
/** Stands for the odd bytes in a path until they are put in (as bytes, or as JSON escapes). */
const MARK = '~~';

/**
 * A gorouter line as bytes, its path carrying 0x00 and 0xff (not UTF-8) where MARK is.
 * @param {import('../support/router-docs.js').TruthRequest} r
 */
function oddLineBytes(r) {
  const bytes = Buffer.from(gorouterLine({ ...r, path: `${r.path}${MARK}` }));
  const at = bytes.indexOf(MARK);
  bytes[at] = 0x00;
  bytes[at + 1] = 0xff;
  return bytes;
}
/** The path stored for an odd request. @param {import('../support/router-docs.js').TruthRequest} r */
const cleanedPath = (r) => `${r.path}\ufffd\ufffd`;

describe('one bad byte never stalls ingest', { timeout: 600_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
  let search;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {Awaited<ReturnType<typeof startLogCacheStandin>>} */
  let logCache;
  const apps = makeApps(1, 1);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-unclean-'));

  before(async () => {
    [db, search, sim, logCache] = await Promise.all([
      startTestDatabase(),
      startSearchNode('opensearch'),
      startCfSimulator({ apps }),
      startLogCacheStandin(),
    ]);
    await migrate(db.pool, pino({ level: 'silent' }));
  });
  after(async () => {
    await Promise.all([search?.stop(), sim?.close(), logCache?.close()]);
    await db?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** @typedef {import('../support/router-docs.js').TruthRequest} TruthRequest */
  /** Paths stored for requests, by vcap_request_id. @param {TruthRequest[]} truth */
  const storedPaths = async (truth) =>
    Object.fromEntries(
      (
        await db.query('SELECT vcap_request_id, path FROM router_requests WHERE vcap_request_id = ANY($1)', [
          truth.map((r) => r.vcapRequestId),
        ])
      ).rows.map((row) => [row.vcap_request_id, row.path]),
    );
  /** @param {import('../support/router-docs.js').TruthRequest[]} truth @param {number[]} odd indices */
  const expectedPaths = (truth, odd) =>
    Object.fromEntries(truth.map((r, i) => [r.vcapRequestId, odd.includes(i) ? cleanedPath(r) : r.path]));
  /** @param {string} source */
  const checkpoint = async (source) =>
    (await db.query('SELECT position FROM ingest_checkpoints WHERE source = $1', [source])).rows[0]?.position;

  it('PostgreSQL takes the text of every record kind whatever it holds (the binary COPY encoder and the load generator encoder)', async () => {
    const writePage = createPageWriter(db.pool);
    const nasty = 'a\0b\ud800c\udc00d\ufffde\ud83d\ude00f';
    const stored = 'a\ufffdb\ufffdc\ufffdd\ufffde\ud83d\ude00f';
    const sample = await writePage({
      kind: 'instance_sample',
      records: [
        /** @type {any} */ ({ kind: 'instance_sample', ts: new Date(), appGuid: 'g-nasty', appName: nasty }),
        /** @type {any} */ ({ kind: 'instance_sample', ts: new Date(), appGuid: 'g-clean', appName: 'shop' }),
      ].map((s) => ({ ...s, processType: 'web', instanceIndex: 0, state: 'RUNNING' })),
    });
    assert.equal(sample.cleaned, 1);
    const [r] = makeRequests(1, Date.now(), 1000, 'kinds');
    const router = await writePage({
      kind: 'router_request',
      records: /** @type {any} */ ([
        { receivedAt: new Date(), appGuid: r.appGuid, vcapRequestId: r.vcapRequestId, path: nasty },
      ]),
    });
    assert.equal(router.cleaned, 1);
    const run = (await db.query(`INSERT INTO test_runs (label) VALUES ('nasty') RETURNING id`)).rows[0].id;
    const encoder = loadgenRowEncoder({ runId: Number(run), worker: nasty });
    const page = Buffer.alloc(encoder.maxBytes(nasty));
    const bytes = encoder.write(page, 0, r.id, Date.now(), 1, 0, nasty);
    const loadgen = await writePage({
      kind: 'loadgen_request',
      records: [],
      encoded: { data: page.subarray(0, bytes), rows: 1, cleaned: encoder.cleaned },
    });
    assert.equal(loadgen.cleaned, 1);
    const texts = await db.query(
      `SELECT (SELECT app_name FROM instance_samples WHERE app_guid = 'g-nasty') AS sample,
        (SELECT path FROM router_requests WHERE vcap_request_id = $1) AS router,
        (SELECT error || '|' || worker FROM loadgen_requests WHERE run_id = $2) AS loadgen`,
      [r.vcapRequestId, run],
    );
    assert.deepEqual(texts.rows[0], { sample: stored, router: stored, loadgen: `${stored}|${stored}` });
  });

  it('a file: the other lines are stored, the odd one cleaned, and `cleaned: 1` is reported', async () => {
    const truth = makeRequests(3, Date.parse('2026-11-22T09:00:00Z'), 60_000, 'file');
    const file = path.join(tmp, 'three.log');
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`${gorouterLine(truth[0])}\n`),
        oddLineBytes(truth[1]),
        Buffer.from(`\n${gorouterLine(truth[2])}\n`),
      ]),
    );
    const result = await runCli(['ingest', '--file', file, '--app', 'shop'], { DATABASE_URL: db.url });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), `3 router requests read from ${file}, 3 new rows; skipped: none; cleaned: 1`);
    assert.deepEqual(await storedPaths(truth), expectedPaths(truth, [1]));
    const again = await runCli(['ingest', '--file', file, '--app', 'shop'], { DATABASE_URL: db.url });
    assert.match(again.stdout, /, 0 new rows; skipped: none; cleaned: 1$/m, 'read again: nothing doubled');
  });

  it('a search page: the other documents are stored, the odd ones cleaned, and the checkpoint moves on', async () => {
    const truth = makeRequests(4, Date.now() - 600_000, 60_000, 'search');
    const odd = { ...truth[1], path: `${truth[1].path}\0\ud800` };
    const oddToo = { ...truth[3], path: `${truth[3].path}\0\udc00` };
    await search.request('PUT', '/_index_template/logs-app', {
      index_patterns: LOGSEARCH_TEMPLATE.index_patterns,
      template: { settings: LOGSEARCH_TEMPLATE.settings, mappings: LOGSEARCH_TEMPLATE.mappings },
    });
    // A search server refuses bytes that are not UTF-8 (`Invalid UTF-8 start byte`), but keeps a
    // JSON "\u0000" and a lone "\ud800" as they were sent.
    await search.bulk('logs-app-unclean', [
      logsearchDocument(truth[0]),
      rawDocument(odd),
      rawDocument(truth[2]),
      logsearchDocument(oddToo),
    ]);
    const env = {
      DATABASE_URL: db.url,
      SEARCH_URL: search.url,
      CF_APPS: 'shop,cart',
      INGEST_DELAY: '1s',
      INGEST_LOOKBACK: '1h',
    };
    const first = await runCli(['ingest'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^4 documents in .*, 4 router requests, 4 new rows; skipped: none; cleaned: 2$/m);
    assert.deepEqual(await storedPaths(truth), {
      ...expectedPaths(truth, []),
      [truth[1].vcapRequestId]: `${truth[1].path}\ufffd\ufffd`,
      [truth[3].vcapRequestId]: `${truth[3].path}\ufffd\ufffd`,
    });
    const reached = await checkpoint('router-logs:logs-app-*');
    assert.ok(reached >= emittedAt(truth[3]), `checkpoint ${reached}`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const next = await runCli(['ingest'], env);
    assert.equal(next.code, 0, next.stderr);
    assert.ok((await checkpoint('router-logs:logs-app-*')) > reached, 'the next increment moves on');
  });

  it('a drain message and a Log Cache envelope: stored cleaned beside the others, the checkpoint moves on', async () => {
    const [app] = apps;
    const now = Date.now();
    const drained = makeRequests(3, now - 60_000, 10_000, 'drain');
    const cached = makeRequests(3, now - 60_000, 10_000, 'log-cache');
    // The syslog agent drops 0x00 from a payload (its rfc5424.go); another sender or a relay may not.
    const bodies = drained.map((r, i) => {
      const message = logMessage(
        rtrEnvelope(gorouterLine(i === 1 ? { ...r, path: `${r.path}${MARK}` } : r), {
          appGuid: r.appGuid,
          appName: r.app,
        }),
      );
      const at = message.indexOf(MARK);
      if (at >= 0) [message[at], message[at + 1]] = [0x00, 0xff];
      return message;
    });
    logCache.envelopes.push(
      ...cached.map((r, i) => ({
        timestamp: BigInt(Date.parse(emittedAt(r))) * 1_000_000n,
        sourceId: app.guid,
        instanceId: String(r.appIndex),
        tags: { source_type: 'RTR', app_name: r.app, app_id: r.appGuid },
        log: i === 1 ? oddLineBytes(r) : gorouterLine(r),
      })),
    );
    const { cli, base } = await startCollect(
      collectEnv(db, sim, {
        DRAIN_TOKEN: TOKEN,
        LOG_CACHE_URL: logCache.url,
        LOG_CACHE_SCHEDULE: '* * * * * *',
        LOG_CACHE_LOOKBACK: '3m',
      }),
    );
    try {
      for (const body of bodies) assert.equal(await postUntilAccepted(`${base}/drain?token=${TOKEN}`, body), 204);
      await waitFor(async () => Object.keys(await storedPaths([...drained, ...cached])).length === 6, {
        what: `drain and Log Cache rows\n${cli.output.stderr}`,
        timeoutMs: 30_000,
      });
      assert.deepEqual(await storedPaths(drained), expectedPaths(drained, [1]));
      assert.deepEqual(await storedPaths(cached), expectedPaths(cached, [1]));
      const lastEnvelope = BigInt(Date.parse(emittedAt(cached[2]))) * 1_000_000n;
      await waitFor(async () => BigInt((await checkpoint(`log-cache:${app.guid}`)) ?? 0) > lastEnvelope, {
        what: 'the Log Cache checkpoint past the last envelope',
      });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, /^paasmon_db_cleaned_records_total\{kind="router_request"\} 2$/m);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('the skipped ratio of a source: a burst makes it degraded, clean data afterwards ok again; sources apart', async () => {
    const routerLog = path.join(tmp, 'gorouter.log');
    const lines = makeRequests(2070, Date.now() - 3_600_000, 60_000, 'router-log-file').map(gorouterLine);
    fs.writeFileSync(routerLog, `${lines.slice(0, 20).join('\n')}\n`);
    const { cli, base } = await startCollect(
      collectEnv(db, sim, {
        SEARCH_URL: search.url,
        CF_APPS: apps[0].name,
        ROUTER_LOG_FILE: routerLog,
        ROUTER_LOG_FILE_APP: 'shop',
        INGEST_SCHEDULE: '* * * * * *',
        INGEST_DELAY: '1s',
      }),
    );
    try {
      const metrics = async () => (await fetch(`${base}/metrics`)).text();
      /** @returns {Promise<{ status: string, lastError: string | null }>} */
      const fileHealth = async () =>
        /** @type {any} */ (await (await fetch(`${base}/healthz`)).json()).sources['router-log-file'];
      const ratio = async (/** @type {string} */ source) =>
        Number(
          new RegExp(`^paasmon_router_skipped_ratio\\{source="${source}"\\} (\\S+)$`, 'm').exec(await metrics())?.[1],
        );
      await waitFor(async () => (await ratio('router-log-file')) === 0 && (await ratio('router-logs')) === 0, {
        what: `both router-log sources in /metrics\n${cli.output.stderr}`,
      });
      // 20 good lines, then a burst of 30 cut short, then 2050 good lines.
      const cut = lines.slice(20, 50).map((line) => line.slice(0, line.indexOf('HTTP/1.1')));
      fs.appendFileSync(routerLog, `${cut.join('\n')}\n`);
      await waitFor(async () => (await fileHealth()).status === 'degraded', { what: 'router-log-file degraded' });
      // Lines are numbered from where the increment began.
      assert.match(
        /** @type {string} */ ((await fileHealth()).lastError),
        /^30 records skipped \(60\.00 % > 1 %\); most for truncated \(30\), e\.g\. line \d+/,
      );
      assert.equal(await ratio('router-log-file'), 0.6);
      assert.equal(await ratio('router-logs'), 0, 'the search source keeps its own ratio');
      fs.appendFileSync(routerLog, `${lines.slice(50).join('\n')}\n`);
      await waitFor(async () => (await fileHealth()).status === 'ok', { what: 'router-log-file ok again' });
      assert.equal(await ratio('router-log-file'), 0);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });
});
