// The real load tools the import tests run (installed by test/support/load-tools/install.sh, which
// .ci/run calls), the sandbox router they load, and the checks every tool's import must pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './cli.js';
import { startTestDatabase } from './database.js';
import { startAppInstances, startGorouterStandin } from '../../sandbox/gorouter-standin.js';

export const TOOLS_DIR =
  process.env.PAASMON_TOOLS_DIR ?? fileURLToPath(new URL('../../.paasmon/tools', import.meta.url));

/**
 * A tool's file; a missing tool fails the test with what to run (tests never skip quietly).
 * @param {string} relative under TOOLS_DIR @param {string} tool
 */
export function toolFile(relative, tool) {
  const file = path.join(TOOLS_DIR, relative);
  if (!fs.existsSync(file))
    throw new Error(`${tool} is not installed (${file} is missing): run bash test/support/load-tools/install.sh`);
  return file;
}

/**
 * percentile_cont: linear interpolation between the values at ranks floor and ceil of p * (n - 1).
 * @param {number[]} sorted @param {number} p
 */
export function percentileCont(sorted, p) {
  const position = p * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

/**
 * A database, two app instances (one request in 25 answered 503) behind the gorouter stand-in,
 * which logs X-Correlation-Id, and a temp dir; `stop` frees all of them.
 */
export async function startSandbox() {
  const db = await startTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-tool-'));
  let n = 0;
  const apps = await startAppInstances(2, (i, _req, res) => {
    n += 1;
    setTimeout(() => res.writeHead(n % 25 === 0 ? 503 : 200).end('hello'), 1 + i);
  });
  const logFile = path.join(dir, 'access.log');
  const router = await startGorouterStandin({
    backends: apps.urls,
    appGuid: '0b1e6f8a-1d2c-4e5f-8a9b-0c1d2e3f4a5b',
    host: 'shop.apps.example.com',
    logFile,
    extraHeaders: ['X-Correlation-Id'],
  });
  const env = { DATABASE_URL: db.url };
  let routerOpen = true;
  return {
    db,
    dir,
    env,
    url: router.url,
    port: Number(new URL(router.url).port),
    /** Closes the router (its log complete) and ingests its lines. */
    async ingestRouterLog() {
      if (routerOpen) await router.close();
      routerOpen = false;
      const ingest = await runCli(['ingest', '--file', logFile, '--app', 'shop'], env);
      assert.equal(ingest.code, 0, ingest.stderr);
    },
    async stop() {
      if (routerOpen) await router.close();
      apps.close();
      await db.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * What an import must have stored: exactly the tool's own request and error counts, e2e
 * percentiles equal to an independent computation from the raw file, and, with ids, every request
 * matched with its router record and e2e >= router time on each (within the tool's resolution:
 * JMeter and Gatling record whole milliseconds, so 6 ms may stand for a request the router timed at 6.09).
 * @param {Awaited<ReturnType<typeof startSandbox>>} sandbox @param {number} runId
 * @param {{ requests: number, errors: number, durationsMs: number[], ids: boolean, resolutionMs?: number }} expected
 */
export async function checkImported(sandbox, runId, expected) {
  const { db } = sandbox;
  const stored = (
    await db.query(
      `SELECT count(*)::int AS requests, count(*) FILTER (WHERE error IS NOT NULL)::int AS errors
       FROM loadgen_requests WHERE run_id = $1`,
      [runId],
    )
  ).rows[0];
  assert.deepEqual(stored, { requests: expected.requests, errors: expected.errors }, "the tool's own summary");
  assert.equal(expected.durationsMs.length, expected.requests, 'the raw file holds every request');
  const sorted = [...expected.durationsMs].sort((a, b) => a - b);
  const summary = (await db.query('SELECT * FROM run_summary WHERE run_id = $1', [runId])).rows[0];
  for (const [column, p] of /** @type {const} */ ([
    ['e2e_p50_ms', 0.5],
    ['e2e_p95_ms', 0.95],
    ['e2e_p99_ms', 0.99],
  ])) {
    const independent = percentileCont(sorted, p);
    assert.ok(Math.abs(summary[column] - independent) <= 1e-6, `${column}: ${summary[column]} vs ${independent}`);
  }
  if (!expected.ids) return;
  const joined = (await db.query('SELECT e2e_ms, router_ms FROM correlated_requests WHERE run_id = $1', [runId])).rows;
  assert.equal(joined.length, expected.requests, 'every request matched with its router record');
  const resolutionMs = expected.resolutionMs ?? 0;
  const earlier = joined.filter((r) => !(r.e2e_ms + resolutionMs >= r.router_ms));
  assert.equal(earlier.length, 0, `e2e < router time on ${earlier.length} rows, e.g. ${JSON.stringify(earlier[0])}`);
}

/** The run id `run exec` printed. @param {string} stdout */
export const runIdOf = (stdout) => Number(/^run (\d+): /m.exec(stdout)?.[1]);
