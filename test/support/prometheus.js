// A real Prometheus (Debian package `prometheus`) on a free port, scraping the given targets.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './database.js';
import { waitFor } from './cli.js';
import { watchOver } from './reaper.js';

/**
 * @param {{ targets: string[], scrapeIntervalSeconds?: number, bearerToken?: string, ruleFiles?: string[],
 *   remoteWrite?: object[] }} options remoteWrite: remote_write entries (every sample, scraped and recorded)
 */
export async function startPrometheus({
  targets,
  scrapeIntervalSeconds = 1,
  bearerToken,
  ruleFiles = [],
  remoteWrite,
}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-prometheus-'));
  const port = await freePort();
  const auth = bearerToken ? `\n    authorization:\n      credentials: ${JSON.stringify(bearerToken)}` : '';
  fs.writeFileSync(
    path.join(dir, 'prometheus.yml'),
    `global:
  scrape_interval: ${scrapeIntervalSeconds}s
  evaluation_interval: ${scrapeIntervalSeconds}s
rule_files: ${JSON.stringify(ruleFiles)}
${remoteWrite ? `remote_write: ${JSON.stringify(remoteWrite)}\n` : ''}scrape_configs:
  - job_name: paasmon
    static_configs:
      - targets: ${JSON.stringify(targets)}${auth}
`,
  );
  const child = spawn(
    'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (child.pid) watchOver({ pids: [child.pid], dirs: [dir] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const failed = new Promise((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`prometheus could not start (apt-get install -y prometheus): ${err.message}`)),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  await Promise.race([
    failed,
    waitFor(async () => (await fetch(`${url}/-/ready`)).ok, {
      timeoutMs: 30_000,
      what: `prometheus ready (${stderr})`,
    }),
  ]);
  return {
    url,
    pid: child.pid,
    dir,
    ...queryApi(url, 'prometheus'),
    /** Rule groups as Prometheus evaluates them (health, lastError per rule). */
    async rules() {
      const body = /** @type {any} */ (await (await fetch(`${url}/api/v1/rules`)).json());
      /** @typedef {{ name: string, health: string, lastError?: string }} Rule */
      return /** @type {Array<{ name: string, rules: Rule[] }>} */ (body.data.groups);
    },
    /** Scrape target health as Prometheus sees it. */
    async targets() {
      const body = /** @type {any} */ (await (await fetch(`${url}/api/v1/targets`)).json());
      return /** @type {Array<{ health: string, lastError: string, scrapeUrl: string }>} */ (body.data.activeTargets);
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The Prometheus query API at `url` (Prometheus, or a receiver that offers the same API).
 * @param {string} url @param {string} name in error messages
 */
export function queryApi(url, name) {
  return {
    /** Instant query; returns the result vector. @param {string} query */
    async query(query) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
      const body = /** @type {any} */ (await response.json());
      if (body.status !== 'success') throw new Error(`${name} query ${query}: ${JSON.stringify(body)}`);
      return /** @type {Array<{ metric: Record<string, string>, value: [number, string] }>} */ (body.data.result);
    },
    /**
     * Range query; returns the result matrix.
     * @param {string} query @param {Date} start @param {Date} end @param {number} stepSeconds
     */
    async queryRange(query, start, end, stepSeconds) {
      const params = new URLSearchParams({
        query,
        start: String(start.getTime() / 1000),
        end: String(end.getTime() / 1000),
        step: String(stepSeconds),
      });
      const body = /** @type {any} */ (await (await fetch(`${url}/api/v1/query_range?${params}`)).json());
      if (body.status !== 'success') throw new Error(`${name} query_range ${query}: ${JSON.stringify(body)}`);
      return /** @type {Array<{ metric: Record<string, string>, values: Array<[number, string]> }>} */ (
        body.data.result
      );
    },
  };
}
