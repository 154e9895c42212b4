// Locust 2.47 (PyPI, in a venv) headless under run exec against the sandbox router, with
// loadgen/tools/locustfile.py: its listener's lines join every request with its router record,
// failures (the sandbox's 503s) included; the counts are those of the summary Locust prints.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { checkImported, runIdOf, startSandbox, toolFile } from '../support/load-tools.js';

const LOCUSTFILE = fileURLToPath(new URL('../../loadgen/tools/locustfile.py', import.meta.url));

/** @type {Awaited<ReturnType<typeof startSandbox>>} */
let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

it("locust: the stored requests are those of Locust's summary, each matched with its router record", async () => {
  const locust = toolFile('locust-venv/bin/locust', 'Locust');
  const { dir } = sandbox;
  const results = path.join(dir, 'requests.jsonl');
  const exec = await runCli(
    [
      'run',
      'exec',
      '--app',
      'shop',
      '--label',
      'locust',
      '--results',
      results,
      '--',
      locust,
      '-f',
      LOCUSTFILE,
      '--headless',
      '-u',
      '4',
      '-r',
      '4',
      '-t',
      '4s',
      '-s',
      '5',
      '--host',
      sandbox.url,
      '--only-summary',
      '--loglevel',
      'WARNING',
      '--exit-code-on-error',
      '0',
    ],
    // No __pycache__ left next to the locustfile.
    { ...sandbox.env, LOCUST_REQUESTS_JSONL: results, TARGET_PATH: '/items', PYTHONDONTWRITEBYTECODE: '1' },
    { timeoutMs: 120_000 },
  );
  assert.equal(exec.code, 0, exec.stderr);
  // The summary Locust prints at the end (its --csv files are written on a timer and may miss the last seconds).
  const aggregate = /^\s*Aggregated\s+(\d+)\s+(\d+)\(/m.exec(exec.stderr);
  assert.ok(aggregate, `Locust's summary (on stderr) in ${exec.stderr}`);
  const lines = fs
    .readFileSync(results, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(
    lines.some((l) => l.status === 503 && l.exception),
    'Locust counted the 503s as failures',
  );
  await sandbox.ingestRouterLog();
  await checkImported(sandbox, runIdOf(exec.stdout), {
    requests: Number(aggregate[1]),
    errors: Number(aggregate[2]),
    durationsMs: lines.map((l) => l.response_time),
    ids: true,
  });
});
