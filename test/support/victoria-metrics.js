// A real single-node VictoriaMetrics (Debian package `victoria-metrics`) on a free port, as the
// remote_write receiver of a test Prometheus; queried through its Prometheus-compatible API.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './database.js';
import { waitFor } from './cli.js';
import { queryApi } from './prometheus.js';
import { watchOver } from './reaper.js';

export async function startVictoriaMetrics() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-victoria-metrics-'));
  const port = await freePort();
  const child = spawn(
    'victoria-metrics',
    [
      `-httpListenAddr=127.0.0.1:${port}`,
      `-storageDataPath=${path.join(dir, 'data')}`,
      '-retentionPeriod=1d',
      // Samples of the last 30 s (the default) are hidden from queries; the test compares up to now.
      '-search.latencyOffset=0s',
      '-search.disableCache',
      '-loggerLevel=ERROR',
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
      reject(new Error(`victoria-metrics could not start (apt-get install -y victoria-metrics): ${err.message}`)),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  await Promise.race([
    failed,
    waitFor(async () => (await fetch(`${url}/health`)).ok, { timeoutMs: 30_000, what: `victoria-metrics (${stderr})` }),
  ]);
  return {
    url,
    /** Where Prometheus remote-writes. */
    writeUrl: `${url}/api/v1/write`,
    ...queryApi(url, 'victoria-metrics'),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
