// `paasmon report` as a user runs it: every format, exit codes, escaping of hostile data, notes
// on missing data. The HTML opened in a real headless Chromium: test/full/report-html.test.js.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { HOSTILE_LABEL, HOSTILE_META, LOADS, startReportRuns } from '../support/report-command-runs.js';

/** @type {Awaited<ReturnType<typeof startReportRuns>>} */
let runs;
/** @type {number[]} */
let scaling = [];
let hostile = 0;
let missing = 0;
let dir = '';

before(async () => {
  runs = await startReportRuns();
  ({ scaling, hostile, missing, dir } = runs);
});

after(async () => {
  await runs?.stop();
});

const all = () => runs.all();
const report = (/** @type {string[]} */ args) => runs.report(args);

test('json: every run, the scalability fit through the scaling series, notes naming the missing data and its command', async () => {
  const { code, stdout, stderr } = await report(['--runs', all(), '--format', 'json']);
  assert.equal(code, 0, stderr);
  const comparison = JSON.parse(stdout);
  assert.deepEqual(
    comparison.runs.map((/** @type {any} */ r) => r.run_id),
    [...scaling, hostile, missing],
  );
  const nodejs = comparison.scaling.find((/** @type {any} */ s) => s.key === 'nodejs');
  assert.equal(nodejs.by, 'parallel');
  assert.equal(nodejs.points.length, LOADS.length);
  // The seeded throughput follows X(N) = 200N / (1 + 0.05(N-1) + 0.01N(N-1)) up to rounding.
  assert.ok(
    Math.abs(nodejs.fit.sigma - 0.05) < 0.01 && Math.abs(nodejs.fit.kappa - 0.01) < 0.002,
    JSON.stringify(nodejs.fit),
  );
  assert.equal(nodejs.fit.peakN, Math.floor(Math.sqrt((1 - nodejs.fit.sigma) / nodejs.fit.kappa)));
  const java = comparison.scaling.find((/** @type {any} */ s) => s.key === 'java"<b>');
  assert.match(java.message, /at least 6 runs/);
  const notes = comparison.notes.filter((/** @type {string} */ n) => n.startsWith(`run ${missing} `));
  assert.equal(notes.length, 2, comparison.notes.join('\n'));
  assert.match(notes.join('\n'), /no router records.*paasmon ingest/);
  assert.match(notes.join('\n'), /no instance samples.*paasmon collect/);
  const bare = comparison.runs.at(-1);
  assert.equal(bare.requests, 80, 'the 10 % at each end of 100 evenly spread requests are dropped');
  assert.deepEqual([bare.router_p95_ms, bare.cpu_percent_avg, bare.rpm_per_cpu_percent], [null, null, null]);
});

test('table: units in the headings, runs side by side, control characters of data shown escaped', async () => {
  const { code, stdout, stderr } = await report(['--runs', all()]);
  assert.equal(code, 0, stderr);
  for (const heading of [
    'throughput req/s',
    'e2e p95 ms',
    'CPU avg % of a core',
    'req/min per CPU %',
    'CPU utilised %',
    'memory avg MiB',
  ])
    assert.match(stdout, new RegExp(`^${heading.replace(/[/%]/g, '\\$&')}  `, 'm'), `row ${heading}`);
  // The definitions are in the legend below the table, not in the row names.
  assert.match(stdout, /^ {2}CPU utilised %: CPU peak \/ CPU capacity \(thesis table 7\.1\)$/m);
  assert.match(stdout, /^ {2}req\/min per CPU %: throughput req\/min \/ CPU avg \(thesis table 7\.2\)$/m);
  assert.match(stdout, /^ {2}behind router mean ms: response_time - gorouter_time: the app$/m);
  assert.match(stdout.split('\n')[1], new RegExp(`figure\\s+run ${scaling[0]}\\s+run ${scaling[1]}`));
  assert.ok(stdout.includes('/a "quoted", comma\\nnewline'), 'the newline of the path is shown as \\n');
  assert.match(stdout, /Missing data/);
});

test('table: every line fits a 100-column terminal, with every run and figure still shown', async () => {
  const { code, stdout, stderr } = await report(['--runs', all()]);
  assert.equal(code, 0, stderr);
  const wide = stdout.split('\n').filter((line) => [...line].length > 100);
  assert.deepEqual(wide, [], `lines over 100 columns:\n${wide.join('\n')}`);
  // Eight runs do not fit side by side: they come in blocks, each with the figure names.
  for (const id of [...scaling, hostile, missing]) assert.match(stdout, new RegExp(`\\brun ${id}\\b`), `run ${id}`);
  const blocks = stdout.split('\n').filter((line) => /^figure\s+run \d+/.test(line));
  assert.ok(blocks.length >= 2, `runs in ${blocks.length} block(s)`);
  assert.equal(stdout.split('\n').filter((line) => line.startsWith('throughput req/s ')).length, blocks.length);
  const json = JSON.parse((await report(['--runs', all(), '--format', 'json'])).stdout);
  const shown = stdout
    .split('\n')
    .filter((line) => line.startsWith('throughput req/s '))
    .flatMap((line) => line.split(/\s{2,}/).slice(1));
  assert.deepEqual(
    shown,
    json.runs
      .map((/** @type {any} */ r) => (r.throughput_rps == null ? '' : r.throughput_rps.toFixed(1)))
      .filter(Boolean),
  );
});

test('md: hostile labels, meta values and paths come out inert and intact', async () => {
  const { code, stdout, stderr } = await report(['--runs', `${scaling[0]},${hostile}`, '--format', 'md']);
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stdout, /<script|<img|<b>/i);
  assert.ok(stdout.includes('&lt;script&gt;alert\\(1\\)&lt;/script&gt;'), stdout);
  assert.ok(stdout.includes('note=&lt;img src=x onerror=alert\\(2\\)&gt;'));
  const pathRow = stdout.split('\n').find((l) => l.includes('quoted'));
  assert.equal(
    pathRow,
    `| ${hostile} | /a &quot;quoted&quot;, comma<br>newline | 320 | ${pathRow?.split(' | ')[3]} | ${pathRow?.split(' | ')[4]}`,
  );
  // Every table row has as many cells as its heading: no | leaked out of a cell.
  for (const table of stdout.split('\n\n').filter((b) => b.startsWith('|'))) {
    const cells = table.split('\n').map((row) => row.split(/(?<!\\)\|/).length);
    assert.ok(
      cells.every((n) => n === cells[0]),
      table,
    );
  }
});

test('csv: stable column names, hostile strings come back intact when parsed', async () => {
  const { code, stdout, stderr } = await report(['--runs', `${scaling[0]},${hostile}`, '--format', 'csv']);
  assert.equal(code, 0, stderr);
  const rows = /** @type {Record<string, string>[]} */ (parse(stdout, { columns: true }));
  assert.equal(rows.length, 2);
  for (const column of [
    'run_id',
    'label',
    'throughput_rps',
    'e2e_p95_ms',
    'cpu_percent_avg',
    'cpu_utilization_percent',
    'rpm_per_cpu_percent',
    'meta',
  ]) {
    assert.ok(column in rows[0], column);
  }
  const evil = /** @type {Record<string, string>} */ (rows.find((r) => Number(r.run_id) === hostile));
  assert.equal(evil.label, HOSTILE_LABEL);
  assert.equal(evil.implementation, 'java"<b>');
  assert.deepEqual(JSON.parse(evil.meta), HOSTILE_META);
  assert.equal(Number(evil.successful), 320);
});

test('unknown run ids (listed), an unknown format, no selection and a bad --trim exit 2 with one line', async () => {
  const unknown = await report(['--runs', `${scaling[0]},99999,88888`]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no such run: 99999, 88888/);
  assert.equal(unknown.stderr.trim().split('\n').length, 1, unknown.stderr);
  const format = await report(['--runs', String(scaling[0]), '--format', 'xml']);
  assert.equal(format.code, 2);
  assert.match(format.stderr, /--format must be one of table, md, csv, json, html, got "xml"/);
  assert.equal((await report([])).code, 2);
  assert.equal((await report(['--runs', '1,abc'])).code, 2);
  assert.equal((await report(['--runs', String(scaling[0]), '--trim', '0.5'])).code, 2);
  const none = await report(['--since', '2031-01-01T00:00:00Z']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no run matches/);
});

test('--label selects the runs of a label; --out writes the file', async () => {
  const out = path.join(dir, 'scaling.csv');
  const { code, stdout, stderr } = await report(['--label', 'nodejs scaling', '--format', 'csv', '--out', out]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /report of 6 runs written to .*scaling\.csv \(csv\)/);
  assert.deepEqual(
    parse(fs.readFileSync(out, 'utf8'), { columns: true }).map((/** @type {any} */ r) => Number(r.run_id)),
    scaling,
  );
});
