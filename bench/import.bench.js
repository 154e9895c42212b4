// Import of a load tool's results at scale: BENCH_LINES (1,000,000) requests of a JMeter JTL with
// ids (or BENCH_FORMAT=hey: no ids, keys derived per row) read by `paasmon import` into a real
// PostgreSQL, next to its baseline: `paasmon ingest --file` of as many router lines. Both are
// whole processes; the figures: lines/s of each, their ratio (goal >= 0.8) and peak RSS (goal < 150 MB).
// Run: npm run bench -- import
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestDatabase } from '../test/support/database.js';
import { gorouterLine, makeRequests } from '../test/support/router-docs.js';
import { timedCli as timed } from './support/peak-rss.js';
import { SPAN, START, resultLines, writeLines } from './support/results-file.js';

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const FORMAT = process.env.BENCH_FORMAT ?? 'jmeter';

/** @param {number} n */
function* routerLines(n) {
  const chunk = 50_000;
  for (let i = 0; i < n; i += chunk)
    for (const r of makeRequests(Math.min(chunk, n - i), START + (i / n) * SPAN, (chunk / n) * SPAN, `b-${i}`))
      yield gorouterLine(r);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-import-bench-'));
const db = await startTestDatabase({ bulk: true });
try {
  const routerFile = path.join(dir, 'router.log');
  const resultsFile = path.join(dir, FORMAT === 'hey' ? 'hey.csv' : 'results.jtl');
  await writeLines(routerFile, routerLines(LINES));
  await writeLines(resultsFile, resultLines(LINES, FORMAT));
  const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  await timed(['migrate'], env);
  console.log(
    `${LINES} lines each; ${os.cpus().length} cores, shared with other work (figures vary run to run); ` +
      `load average ${os.loadavg()[0].toFixed(1)}`,
  );

  const ingest = await timed(['ingest', '--file', routerFile, '--app', 'shop'], env);
  const ingestRate = LINES / ingest.seconds;
  const startedAt = FORMAT === 'hey' ? ['--started-at', new Date(START).toISOString()] : [];
  const imported = await timed(['import', resultsFile, '--app', 'shop', '--label', 'bench', ...startedAt], env);
  const importRate = LINES / imported.seconds;
  const runId = /into run (\d+)/.exec(imported.stdout)?.[1] ?? '0';
  const again = await timed(['import', resultsFile, '--run', runId, ...startedAt], env);
  console.log(
    `ingest --file (router lines): ${Math.round(ingestRate)} lines/s, ${ingest.seconds.toFixed(1)} s, ` +
      `peak RSS ${ingest.peakMb.toFixed(1)} MB`,
  );
  console.log(
    `import (${FORMAT}):            ${Math.round(importRate)} lines/s, ${imported.seconds.toFixed(1)} s, ` +
      `peak RSS ${imported.peakMb.toFixed(1)} MB (goal < 150)`,
  );
  console.log(`import / ingest:             ${(importRate / ingestRate).toFixed(2)} (goal >= 0.8)`);
  console.log(
    `import again (adds nothing): ${Math.round(LINES / again.seconds)} lines/s; ${again.stdout.split(';')[0]}`,
  );
} finally {
  await db.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
