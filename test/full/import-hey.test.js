// hey (the real binary, `go install`) under run exec against the sandbox router: its CSV has
// offsets relative to its start, which run exec supplies; hey sends no per-request id, so the run
// is compared over its window and correlate says so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { checkImported, runIdOf, startSandbox, toolFile } from '../support/load-tools.js';

/** @type {Awaited<ReturnType<typeof startSandbox>>} */
let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

it('hey: the stored requests are the CSV rows hey wrote, percentiles as computed from it, no ids said', async () => {
  const hey = toolFile('bin/hey', 'hey');
  const results = path.join(sandbox.dir, 'hey.csv');
  const requests = 500;
  const exec = await runCli(
    [
      'run',
      'exec',
      '--app',
      'shop',
      '--label',
      'hey',
      '--results',
      results,
      '--format',
      'hey',
      '--',
      'sh',
      '-c',
      `"$0" -n ${requests} -c 4 -o csv "$1" > "$2"`,
      hey,
      `${sandbox.url}/items`,
      results,
    ],
    sandbox.env,
  );
  assert.equal(exec.code, 0, exec.stderr);
  const runId = runIdOf(exec.stdout);
  const rows = fs
    .readFileSync(results, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
  // hey's own count: -n requests, each with a response (the sandbox refuses none)
  assert.equal(rows.length, requests);
  await checkImported(sandbox, runId, {
    requests,
    errors: rows.filter((r) => Number(r[6]) >= 400).length,
    durationsMs: rows.map((r) => Math.round(Number(r[0]) * 1e6) / 1e3),
    ids: false,
  });
  const window = (await sandbox.db.query('SELECT started_at, ended_at FROM test_runs WHERE id = $1', [runId])).rows[0];
  const first = (await sandbox.db.query('SELECT min(started_at) AS t FROM loadgen_requests WHERE run_id = $1', [runId]))
    .rows[0].t;
  assert.ok(first >= window.started_at && first <= window.ended_at, 'offsets placed inside the run');
  await sandbox.ingestRouterLog();
  const correlate = await runCli(['correlate', '--run', String(runId)], sandbox.env);
  assert.match(correlate.stdout, new RegExp(`^run ${runId}: hey recorded no correlation ids for ${requests} of`, 'm'));
});
