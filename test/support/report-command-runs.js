// Databases of seeded runs for the report tests: the runs `paasmon report` is tried on (a scaling
// series of a USL-shaped load, a run of hostile labels, paths and meta, a run without router records
// or samples) with `paasmon report` on them; and the runs the sql/queries tests read.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { uslThroughput } from '../../report/usl.js';
import { runCli } from './cli.js';
import { startTestDatabase } from './database.js';
import { seedQueryRuns, seedRun } from './report-runs.js';

export const HOSTILE_LABEL = '<script>alert(1)</script>';
export const HOSTILE_PATH = '/a "quoted", comma\nnewline';
export const HOSTILE_META = { note: '<img src=x onerror=alert(2)>', 'k,1': 'a\nb "c"' };
export const LOADS = [1, 2, 4, 8, 12, 16];

/** A fresh database with the runs, a scratch directory, and `report` on that database. */
export async function startReportRuns() {
  const db = await startTestDatabase({ bulk: true });
  await migrate(db.pool, pino({ level: 'silent' }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-report-'));
  const base = Date.parse('2026-05-01T08:00:00Z');
  /** @type {number[]} */
  const scaling = [];
  for (const [i, n] of LOADS.entries()) {
    const throughput = uslThroughput(200, 0.05, 0.01, n);
    scaling.push(
      await seedRun(db.query, {
        label: 'nodejs scaling',
        app: 'shop',
        implementation: 'nodejs',
        instances: 1,
        coresPerInstance: 1,
        parallel: n,
        start: new Date(base + i * 600_000),
        spanS: 20,
        successful: Math.round(throughput * 20),
        serverErrors: n,
        timeouts: 1,
        durationSql: `${((1000 * n) / throughput).toFixed(3)} + (i % 7) * 0.1`,
        cpuPolls: [10 + 6 * n, 8 + 6 * n],
        pollS: 2,
        memMiBPerInstance: 100 + 5 * n,
      }),
    );
  }
  const hostile = await seedRun(db.query, {
    label: HOSTILE_LABEL,
    app: 'evil',
    implementation: 'java"<b>',
    instances: 2,
    coresPerInstance: 2,
    parallel: 3,
    meta: HOSTILE_META,
    start: new Date(base + 10 * 600_000),
    spanS: 20,
    successful: 400,
    path: HOSTILE_PATH,
    cpuPolls: [120, 80],
    pollS: 2,
  });
  const missing = await seedRun(db.query, {
    label: 'no router, no samples',
    app: 'bare',
    start: new Date(base + 11 * 600_000),
    spanS: 10,
    successful: 100,
    router: false,
  });
  await db.query('ANALYZE');
  return {
    db,
    dir,
    scaling,
    hostile,
    missing,
    /** Every run id, comma-separated. */
    all: () => [...scaling, hostile, missing].join(','),
    /** @param {string[]} args */
    report: (args) => runCli(['report', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, { timeoutMs: 120_000 }),
    async stop() {
      await db.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database with the runs of seedQueryRuns: three rounds of one setup and a bare run. */
export async function startQueryRuns() {
  const db = await startTestDatabase();
  await migrate(db.pool, pino({ level: 'silent' }));
  const { rounds, bare } = await seedQueryRuns(db.query);
  await db.query('ANALYZE');
  return { db, rounds, bare };
}
