// The ingest chaos scenarios of test/full/chaos-ingest.test.js, longer: more documents,
// many more SIGKILLs of `paasmon ingest`, several search-node deaths. Prints the figures of each.
// Run: npm run bench -- chaos   (BENCH_CHAOS_DOCS, BENCH_CHAOS_KILLS, BENCH_CHAOS_NODE_KILLS, BENCH_CHAOS_SEED)
import pino from 'pino';
import { migrate } from '../exporters/postgres/schema/migrate.js';
import {
  chaosRequests,
  indexDocuments,
  killIngestScenario,
  killSearchNodeScenario,
  stopDatabaseMidCopyScenario,
} from '../test/support/chaos.js';
import { startTestDatabase } from '../test/support/database.js';
import { startSearchNode } from '../test/support/search-node.js';

const DOCS = Number(process.env.BENCH_CHAOS_DOCS ?? 200_000);
const KILLS = Number(process.env.BENCH_CHAOS_KILLS ?? 30);
const NODE_KILLS = Number(process.env.BENCH_CHAOS_NODE_KILLS ?? 3);
const SEED = Number(process.env.BENCH_CHAOS_SEED ?? Date.now() % 100_000);

const { requests, documents } = chaosRequests(DOCS);
let search = await startSearchNode('opensearch');
const db = await startTestDatabase();
try {
  await migrate(db.pool, pino({ level: 'silent' }));
  await indexDocuments(search, documents);
  const reset = () => db.query('TRUNCATE router_requests, ingest_checkpoints');
  console.log(`chaos: ${DOCS.toLocaleString('en')} documents in OpenSearch, seed ${SEED}`);

  for (const failAtPage of [2, 5, 9]) {
    await reset();
    const f = await stopDatabaseMidCopyScenario({ searchUrl: search.url, db, requests, pageSize: 10_000, failAtPage });
    console.log(`  PostgreSQL stopped mid-COPY of page ${failAtPage}: ${JSON.stringify(f)}`);
  }

  await reset();
  const kills = await killIngestScenario({
    searchUrl: search.url,
    db,
    requests,
    kills: KILLS,
    seed: SEED,
    maxDelayMs: 8000,
  });
  console.log(`  paasmon ingest SIGKILLed ${KILLS} times: ${JSON.stringify(kills)}`);

  for (let i = 0; i < NODE_KILLS; i++) {
    await reset();
    const f = await killSearchNodeScenario({ search, db, requests, documents, killAfterMs: 200 + i * 700 });
    search = f.search;
    console.log(
      `  search node SIGKILLed mid-window (${i + 1}/${NODE_KILLS}): ${JSON.stringify({ ...f, search: undefined })}`,
    );
  }
} finally {
  await search.stop();
  await db.stop();
}
