// A new import format is one folder and one entry of the formats list: in a copy of the code, a toy
// tool's results folder and the two lines that name it in formats.js (its import and its entry) make
// `paasmon import` detect, read, count and store the toy's files, and `--help` list it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FORMATS_FILE = 'collector/sources/load-results/formats.js';
const LIST_START = 'export const IMPORT_FORMATS = Object.freeze([';

// The toy tool's module, as a new format's folder would hold it: its recogniser and line parser.
const TOY_MODULE = `import { LOAD_RESULTS } from '../../../../core/reason-codes.js';
import { request } from '../records.js';

/** @param {string} text */
function toyLine(text) {
  if (text.startsWith('#')) return null;
  const [sentMs, elapsedMs, status, id] = text.split('\\t');
  if (!(Number(sentMs) > 0) || !(Number(elapsedMs) >= 0)) return LOAD_RESULTS.BAD_NUMBER;
  const code = Number(status);
  return request({
    correlationId: id || null,
    startedAtMs: Number(sentMs),
    durationMs: Number(elapsedMs),
    status: code,
    error: code >= 400 ? \`status \${code}\` : null,
    tool: 'toy',
    method: 'GET',
    url: '/toy',
    bytes: null,
  });
}

/** @type {import('../formats.js').ImportFormat} */
export const toyFormat = {
  name: 'toy',
  tool: 'toy',
  shapes: [{ variant: 'lines', recognise: ({ line }) => line === '# toy results', framing: 'lines', line: toyLine }],
  needs: [],
  recordIds: 'send the id as the toy does',
};
`;

describe('a toy import format', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-toy-format-'));
  before(async () => {
    for (const dir of ['collector', 'core', 'exporters', 'report', 'loadgen', 'sql'])
      fs.cpSync(path.join(ROOT, dir), path.join(copy, dir), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    db = await startTestDatabase();
  });
  after(async () => {
    await db?.stop();
    fs.rmSync(copy, { recursive: true, force: true });
  });

  it('is read, stored and listed once its folder and its line in the list are added', async () => {
    const folder = path.join(copy, 'collector/sources/load-results/toy');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'index.js'), TOY_MODULE);
    const original = fs.readFileSync(path.join(ROOT, FORMATS_FILE), 'utf8');
    assert.ok(original.includes(LIST_START), 'the list starts where this test adds its entry');
    const edited = `import { toyFormat } from './toy/index.js';\n${original}`.replace(
      LIST_START,
      `${LIST_START}\n  toyFormat,`,
    );
    fs.writeFileSync(path.join(copy, FORMATS_FILE), edited);
    assert.equal(edited.split('\n').length - original.split('\n').length, 2, 'the import and the entry');

    const T0 = Date.parse('2026-11-28T10:00:00Z');
    const ids = ['8f3b1c2e-4d5a-4b6c-9d7e-0f1a2b3c4d5e', '1e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6'];
    const file = path.join(copy, 'results.toy');
    const lines = ['# toy results', `${T0}\t12.5\t200\t${ids[0]}`, 'soon\t3\t200\t', `${T0 + 40}\t20\t503\t${ids[1]}`];
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const cli = path.join(copy, 'collector/cli.js');
    const env = { DATABASE_URL: db.url };

    const imported = await runCli(
      ['import', file, '--app', 'shop', '--label', 'toy 1', '--max-skipped-ratio', '0.5'],
      env,
      { cli },
    );
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /2 requests read from .*results\.toy \(toy\) into run (\d+), 2 new rows, 2 with/);
    assert.match(imported.stdout, /skipped: bad_number=1 \(e\.g\. line 3\b/);
    const runId = Number(/into run (\d+)/.exec(imported.stdout)?.[1]);
    const { rows } = await db.pool.query(
      `SELECT correlation_id::text AS id, duration_ms, status, extract(epoch FROM started_at) * 1000 AS sent_ms
         FROM loadgen_requests WHERE run_id = $1 ORDER BY started_at`,
      [runId],
    );
    assert.deepEqual(
      rows.map((r) => [r.id, Number(r.duration_ms), r.status, Number(r.sent_ms)]),
      [
        [ids[0], 12.5, 200, T0],
        [ids[1], 20, 503, T0 + 40],
      ],
    );
    const run = await db.pool.query(`SELECT meta->>'tool' AS tool FROM test_runs WHERE id = $1`, [runId]);
    assert.equal(run.rows[0].tool, 'toy');

    const again = await runCli(['import', file, '--run', String(runId)], env, { cli });
    assert.match(again.stdout, /into run \d+, 0 new rows/, 'the same file again adds nothing');
    const help = await runCli(['import', '--help'], env, { cli });
    assert.match(help.stdout, /\btoy\b/);
    const ours = await runCli(['import', '--help'], env);
    assert.doesNotMatch(ours.stdout, /\btoy\b/, 'the repository itself knows no toy');
  });
});
