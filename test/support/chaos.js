// Chaos scenarios for router-log ingest against a real OpenSearch and PostgreSQL, shared by
// test/full/chaos-ingest.test.js (small) and bench/chaos.bench.js (long). Each returns its
// figures; "lost" and "duplicated" are counted against the generated truth, not the parser.
import pino from 'pino';
import { loadConfig } from '../../collector/config/index.js';
import { ingestIncrement } from '../../collector/pipeline/ingest.js';
import { createRouterLogSource } from '../../collector/sources/router-logs/index.js';
import { createPageWriter } from '../../exporters/postgres/sink/page-writer.js';
import { startCli } from './cli.js';
import { LOGSEARCH_TEMPLATE, lineDocument, logsearchDocument, makeRequests, rawDocument } from './router-docs.js';
import { startSearchNode } from './search-node.js';
// A seeded PRNG, so a failing run can be repeated.
import { seededRandom as random } from '../../report/compare/random.js';

export const INDEX = 'logs-app-chaos-2026.11.21';
const START = Date.parse('2026-11-21T00:00:00Z');
const SPAN = 3600_000;
const silent = pino({ level: 'silent' });

/** @typedef {Awaited<ReturnType<typeof startSearchNode>>} SearchNode */
/** @typedef {Awaited<ReturnType<typeof import('./database.js').startTestDatabase>>} TestDatabase */

/** `count` requests of one hour, as documents of the shapes pipelines write. @param {number} count */
export function chaosRequests(count) {
  const requests = makeRequests(count, START, SPAN, `chaos-${count}`);
  const shapes = [logsearchDocument, rawDocument, (/** @type {any} */ r) => lineDocument(r, 'log')];
  return { requests, documents: requests.map((r, i) => shapes[i % shapes.length](r)) };
}

/** @param {SearchNode} search @param {unknown[]} documents */
export async function indexDocuments(search, documents) {
  await search.request('PUT', '/_index_template/logs-app', {
    index_patterns: LOGSEARCH_TEMPLATE.index_patterns,
    template: { settings: LOGSEARCH_TEMPLATE.settings, mappings: LOGSEARCH_TEMPLATE.mappings },
  });
  await search.bulk(INDEX, documents);
}

/**
 * What `paasmon ingest` (incremental) needs to read the whole hour from scratch.
 * @param {string} searchUrl @param {string} databaseUrl
 */
export function ingestEnv(searchUrl, databaseUrl) {
  return {
    DATABASE_URL: databaseUrl,
    SEARCH_URL: searchUrl,
    SEARCH_INDEX: 'logs-app-chaos-*',
    CF_APPS: 'shop,cart',
    INGEST_DELAY: '0s',
    INGEST_LOOKBACK: `${Math.ceil((Date.now() - START) / 3_600_000) + 1}h`,
  };
}

/**
 * Lost and duplicated requests in router_requests against the truth.
 * @param {TestDatabase} db @param {ReturnType<typeof makeRequests>} requests
 */
export async function tally(db, requests) {
  const { rows } = await db.query(`SELECT vcap_request_id, count(*)::int AS n, min(response_time_ms) AS ms,
    min(correlation_id) AS correlation_id FROM router_requests GROUP BY vcap_request_id`);
  const stored = new Map(rows.map((r) => [r.vcap_request_id, r]));
  let lost = 0;
  let wrong = 0;
  for (const r of requests) {
    const row = stored.get(r.vcapRequestId);
    if (!row) lost += 1;
    else if (row.ms !== r.responseUs / 1000 || row.correlation_id !== r.id) wrong += 1;
  }
  const duplicated = rows.reduce((sum, r) => sum + r.n - 1, 0);
  return { stored: rows.length, lost, duplicated, wrong, foreign: rows.length - (requests.length - lost) };
}

/**
 * SIGKILLs `paasmon ingest` `kills` times, each at a random point (0..maxDelayMs) after a page was
 * committed, so it dies in the middle of a later page; then lets one run finish.
 * @param {{ searchUrl: string, db: TestDatabase, requests: ReturnType<typeof makeRequests>, kills: number,
 *   seed: number, maxDelayMs: number }} options
 */
export async function killIngestScenario({ searchUrl, db, requests, kills, seed, maxDelayMs }) {
  const rand = random(seed);
  const env = ingestEnv(searchUrl, db.url);
  const rows = async () => (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n;
  const checkpoint = async () => (await db.query('SELECT position FROM ingest_checkpoints')).rows[0]?.position;
  let killedMidRun = 0;
  let killedWithProgress = 0;
  let finishedFirst = 0;
  for (let attempt = 0; killedMidRun < kills && attempt < kills * 4; attempt++) {
    const before = { rows: await rows(), checkpoint: await checkpoint() };
    const run = startCli(['ingest'], env);
    let exited = false;
    void run.exited.then(() => {
      exited = true;
    });
    while (!exited && (await rows()) === before.rows) await new Promise((r) => setTimeout(r, 5));
    if (!exited) await new Promise((r) => setTimeout(r, Math.floor(rand() * maxDelayMs)));
    if (exited) {
      // It finished before the kill: start over, so the next kill lands in a run again.
      finishedFirst += 1;
      await db.query('TRUNCATE router_requests, ingest_checkpoints');
      continue;
    }
    run.child.kill('SIGKILL');
    await run.exited;
    killedMidRun += 1;
    if ((await checkpoint()) !== before.checkpoint) killedWithProgress += 1;
  }
  const last = startCli(['ingest'], env);
  const exit = await last.exited;
  if (exit.code !== 0) throw new Error(`the last ingest failed: ${last.output.stderr.slice(-2000)}`);
  return { kills, killedMidRun, killedWithProgress, finishedFirst, ...(await tally(db, requests)) };
}

/**
 * Stops PostgreSQL while a page's COPY is running: the page's transaction must roll back, the
 * checkpoint must stay where the last committed page left it, and the next run must complete.
 * @param {{ searchUrl: string, db: TestDatabase, requests: ReturnType<typeof makeRequests>, pageSize: number,
 *   failAtPage: number }} options
 */
export async function stopDatabaseMidCopyScenario({ searchUrl, db, requests, pageSize, failAtPage }) {
  const config = loadConfig({ SEARCH_URL: searchUrl, SEARCH_INDEX: 'logs-app-chaos-*', CF_APPS: 'shop,cart' });
  const source = createRouterLogSource(config, { log: silent, pageSize });
  const real = createPageWriter(db.pool);
  const watcher = new (await import('pg')).default.Client({ connectionString: db.url });
  watcher.on('error', () => {});
  await watcher.connect();
  let pages = 0;
  let stoppedDuringCopy = false;
  /** @type {string | undefined} */
  let committedPosition;
  let committedRows = 0;
  /** @type {import('../../core/types.js').PageWriter} */
  const writePage = async (page) => {
    pages += 1;
    if (pages !== failAtPage) {
      const inserted = await real(page);
      if (page.checkpoint) committedPosition = page.checkpoint.position;
      committedRows += page.encoded?.rows ?? page.records.length;
      return inserted;
    }
    const writing = real(page);
    // Watch from another connection until this page's COPY runs, then stop the server under it.
    for (let i = 0; i < 20_000 && !stoppedDuringCopy; i++) {
      const { rows } = await watcher.query(
        `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'COPY % FROM STDIN%'`,
      );
      if (rows.length) {
        stoppedDuringCopy = true;
        await Promise.all([db.stopServer(), writing.catch(() => {})]);
      }
    }
    return writing;
  };
  const options = { now: new Date(START + SPAN + 60_000), delayMs: 0, lookbackMs: SPAN + 120_000 };
  /** @type {unknown} */
  let failure;
  try {
    await ingestIncrement(source, options, { pool: db.pool, writePage });
  } catch (err) {
    failure = err;
  }
  await watcher.end().catch(() => {});
  await db.startServer();
  const after = {
    checkpoint: (await db.query('SELECT position FROM ingest_checkpoints')).rows[0]?.position,
    rows: (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0].n,
  };
  await ingestIncrement(source, options, { pool: db.pool });
  await source.close();
  return {
    failed: Boolean(failure),
    stoppedDuringCopy,
    checkpointUnmoved: after.checkpoint === committedPosition,
    rowsAfterFailure: after.rows,
    rowsOfCommittedPages: committedRows,
    ...(await tally(db, requests)),
  };
}

/**
 * SIGKILLs the search node while `paasmon ingest` reads a window, brings up a node on the same
 * port with the same documents, and runs `paasmon ingest` again.
 * @param {{ search: SearchNode, db: TestDatabase, requests: ReturnType<typeof makeRequests>, documents: unknown[],
 *   killAfterMs: number }} options
 * @typedef {Awaited<ReturnType<typeof tally>>} Tally
 * @returns {Promise<{ search: SearchNode, firstExit: number | null, restartMs: number } & Tally>}
 */
export async function killSearchNodeScenario({ search, db, requests, documents, killAfterMs }) {
  const env = ingestEnv(search.url, db.url);
  const first = startCli(['ingest'], { ...env, LOG_LEVEL: 'warn' });
  // Kill once the first pages are in, so the window is cut in the middle.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { n } = (await db.query('SELECT count(*)::int AS n FROM router_requests')).rows[0];
    if (n > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, killAfterMs));
  await search.kill();
  const firstExit = (await first.exited).code;
  const restarted = performance.now();
  const port = Number(new URL(search.url).port);
  const replacement = await startSearchNode(/** @type {any} */ (search.flavor), { httpPort: port });
  await indexDocuments(replacement, documents);
  const restartMs = performance.now() - restarted;
  const second = startCli(['ingest'], env);
  const exit = await second.exited;
  if (exit.code !== 0) throw new Error(`ingest after the restart failed: ${second.output.stderr.slice(-2000)}`);
  return { search: replacement, firstExit, restartMs, ...(await tally(db, requests)) };
}
