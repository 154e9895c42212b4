// vegeta (the real binary, `go install`) under run exec against the sandbox router, with targets
// from loadgen/tools/vegeta-targets.js: every request joined with its router record, the counts
// those of `vegeta report`, read from `encode --to json` and from `--to csv` alike.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { checkImported, runIdOf, startSandbox, toolFile } from '../support/load-tools.js';
import { vegetaTargets } from '../../loadgen/tools/vegeta-targets.js';

/** @type {Awaited<ReturnType<typeof startSandbox>>} */
let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

it('vegeta: the stored requests are those vegeta reports, each matched with its router record', async () => {
  const vegeta = toolFile('bin/vegeta', 'vegeta');
  const { dir } = sandbox;
  const targets = path.join(dir, 'targets.jsonl');
  // 300/s for 2 s, with targets to spare: without -lazy vegeta would cycle (and repeat) them.
  fs.writeFileSync(targets, `${[...vegetaTargets(`${sandbox.url}/items`, 900)].join('\n')}\n`);
  const [bin, json, csv, report] = ['results.bin', 'results.json', 'results.csv', 'report.json'].map((f) =>
    path.join(dir, f),
  );
  const script =
    `"$0" attack -format=json -targets="$1" -rate=300/s -duration=2s -timeout=5s > "$2" && ` +
    `"$0" report -type=json < "$2" > "$3" && "$0" encode --to json < "$2" > "$4" && "$0" encode --to csv < "$2" > "$5"`;
  const exec = await runCli(
    [
      'run',
      'exec',
      '--app',
      'shop',
      '--label',
      'vegeta',
      '--results',
      json,
      '--',
      'sh',
      '-c',
      script,
      vegeta,
      targets,
      bin,
      report,
      json,
      csv,
    ],
    sandbox.env,
  );
  assert.equal(exec.code, 0, exec.stderr);
  const runId = runIdOf(exec.stdout);
  const own = JSON.parse(fs.readFileSync(report, 'utf8'));
  const lines = fs
    .readFileSync(json, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const expected = {
    requests: own.requests,
    errors: own.requests - Math.round(own.success * own.requests),
    durationsMs: lines.map((l) => l.latency / 1e6),
    ids: true,
  };
  await sandbox.ingestRouterLog();
  await checkImported(sandbox, runId, expected);

  const fromCsv = await runCli(['import', csv, '--app', 'shop', '--label', 'vegeta csv'], sandbox.env);
  assert.equal(fromCsv.code, 0, fromCsv.stderr);
  assert.match(fromCsv.stdout, new RegExp(`${own.requests} requests read .*\\(vegeta\\).* ${own.requests} with the`));
  await checkImported(sandbox, Number(/into run (\d+)/.exec(fromCsv.stdout)?.[1]), expected);
});
