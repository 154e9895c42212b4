// Chaos during `paasmon ingest` against a real OpenSearch and PostgreSQL: the ingest process
// SIGKILLed mid-page at random points, PostgreSQL stopped mid-COPY, the search node SIGKILLed
// mid-window. After the last run: 0 lost, 0 duplicated, every value right. Long variants:
// npm run bench -- chaos
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  chaosRequests,
  indexDocuments,
  killIngestScenario,
  killSearchNodeScenario,
  stopDatabaseMidCopyScenario,
} from '../support/chaos.js';
import { startTestDatabase } from '../support/database.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { startSearchNode } from '../support/search-node.js';
import pino from 'pino';

const COUNT = 30_000;
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);

describe(`chaos during paasmon ingest (${COUNT} documents, seed ${SEED})`, { timeout: 900_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startSearchNode>>} */
  let search;
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const { requests, documents } = chaosRequests(COUNT);

  before(async () => {
    [search, db] = await Promise.all([startSearchNode('opensearch'), startTestDatabase()]);
    await migrate(db.pool, pino({ level: 'silent' }));
    await indexDocuments(search, documents);
  });
  after(async () => {
    await search?.stop();
    await db?.stop();
  });
  const reset = () => db.query('TRUNCATE router_requests, ingest_checkpoints');

  it('PostgreSQL stopped mid-COPY: the page rolls back, the checkpoint stays, the next run completes', async () => {
    await reset();
    const figures = await stopDatabaseMidCopyScenario({
      searchUrl: search.url,
      db,
      requests,
      pageSize: 10_000,
      failAtPage: 2,
    });
    console.log(`chaos ingest, PostgreSQL stopped mid-COPY: ${JSON.stringify(figures)}`);
    assert.equal(figures.stoppedDuringCopy, true, 'the server went down while the COPY ran');
    assert.equal(figures.failed, true, 'that run failed');
    assert.equal(figures.checkpointUnmoved, true, 'the checkpoint is where the last committed page left it');
    assert.equal(figures.rowsAfterFailure, figures.rowsOfCommittedPages, 'only the committed pages are stored');
    assert.deepEqual([figures.lost, figures.duplicated, figures.wrong, figures.foreign], [0, 0, 0, 0]);
  });

  it('`paasmon ingest` SIGKILLed mid-page 5 times at random points: 0 lost, 0 duplicated', async () => {
    await reset();
    const figures = await killIngestScenario({
      searchUrl: search.url,
      db,
      requests,
      kills: 5,
      seed: SEED,
      maxDelayMs: 300,
    });
    console.log(`chaos ingest, SIGKILL mid-page: ${JSON.stringify(figures)}`);
    assert.equal(figures.killedMidRun, 5, 'every kill landed in a run, after a committed page');
    assert.deepEqual([figures.lost, figures.duplicated, figures.wrong, figures.foreign], [0, 0, 0, 0]);
    assert.equal(figures.stored, COUNT);
  });

  it('the search node SIGKILLed mid-window, restarted, ingest run again: every document exactly once', async () => {
    await reset();
    const figures = await killSearchNodeScenario({ search, db, requests, documents, killAfterMs: 100 });
    search = figures.search;
    console.log(`chaos ingest, search node SIGKILLed: ${JSON.stringify({ ...figures, search: undefined })}`);
    assert.equal(figures.firstExit, 1, 'the run whose node died failed');
    assert.deepEqual([figures.lost, figures.duplicated, figures.wrong, figures.foreign], [0, 0, 0, 0]);
    assert.equal(figures.stored, COUNT);
  });
});
