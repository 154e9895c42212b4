// `paasmon report` as a user runs it: every format, exit codes, escaping of hostile data, notes
// on missing data, and the HTML opened in a real headless Chromium.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { parse } from 'csv-parse/sync';
import { migrate } from '../../exporters/postgres/migrate.js';
import { uslThroughput } from '../../report/usl.js';
import { findChromium, launchChromium } from '../support/chromium.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { seedRun } from '../support/report-runs.js';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
const HOSTILE_LABEL = '<script>alert(1)</script>';
const HOSTILE_PATH = '/a "quoted", comma\nnewline';
const HOSTILE_META = { note: '<img src=x onerror=alert(2)>', 'k,1': 'a\nb "c"' };
const LOADS = [1, 2, 4, 8, 12, 16];

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {number[]} */
const scaling = [];
/** @type {number} */
let hostile;
/** @type {number} */
let missing;
/** @type {string} */
let dir;

before(async () => {
  db = await startTestDatabase({ bulk: true });
  await migrate(db.pool, pino({ level: 'silent' }));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-report-'));
  const base = Date.parse('2026-05-01T08:00:00Z');
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
  hostile = await seedRun(db.query, {
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
  missing = await seedRun(db.query, {
    label: 'no router, no samples',
    app: 'bare',
    start: new Date(base + 11 * 600_000),
    spanS: 10,
    successful: 100,
    router: false,
  });
  await db.query('ANALYZE');
});

after(async () => {
  await db?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const all = () => [...scaling, hostile, missing].join(',');
/** @param {string[]} args */
const report = (args) =>
  runCli(['report', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, { timeoutMs: 120_000 });

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

// The axis names each chart must show (with units).
const AXES = {
  'throughput-cpu': ['throughput (successful req/s)', 'CPU avg (% of one core, sum of instances)'],
  'latency-throughput': ['throughput (successful req/s)', 'e2e mean response time (ms)'],
  'memory-cpu': ['CPU avg (% of one core, sum of instances)', 'memory avg (MiB, sum of instances)'],
  'usl-nodejs': ['load (parallel requests)', 'throughput (successful req/s)'],
  'latency-percentiles': ['run', 'latency (ms)'],
  'latency-breakdown': ['run', 'mean time (ms)'],
  'instance-cpu': ['seconds since run start (s)', 'CPU (% of one core)'],
  'instance-memory': ['seconds since run start (s)', 'memory (MiB)'],
};

test('html: self-contained, opens offline in headless Chromium with every chart drawn, no script, no request', async (t) => {
  const executable = findChromium();
  if (!executable) {
    console.error(
      '\n*** CHROMIUM NOT INSTALLED (apt-get install chromium): the HTML report is NOT checked in a browser ***\n',
    );
    t.skip('chromium not installed');
    return;
  }
  const file = path.join(dir, 'report.html');
  const run = await report(['--runs', all(), '--format', 'html', '--out', file]);
  assert.equal(run.code, 0, run.stderr);
  const html = fs.readFileSync(file, 'utf8');
  // No element that loads or runs anything; the hostile meta's "src=" is text between entities.
  assert.doesNotMatch(html, /<(script|link|img|iframe|object|embed)\b|<[^>]*\s(src|href)\s*=|@import|url\((?!#)/i);
  const json = JSON.parse((await report(['--runs', all(), '--format', 'json'])).stdout);
  const runs = /** @type {any[]} */ (json.runs);
  const count = (/** @type {(r: any) => boolean} */ f) => runs.filter(f).length;
  /** @type {Record<string, number>} marks each chart must draw: one per measured value */
  const expectedMarks = {
    'throughput-cpu': count((r) => r.cpu_percent_avg != null),
    'latency-throughput': count((r) => r.e2e_mean_ms != null),
    'memory-cpu': count((r) => r.mem_bytes_avg != null),
    'usl-nodejs': LOADS.length,
    'latency-percentiles': 4 * count((r) => r.e2e_p50_ms != null),
    'latency-breakdown': 3 * count((r) => r.outside_router_mean_ms != null),
    'instance-cpu': json.instanceSeries.length,
    'instance-memory': json.instanceSeries.length,
  };
  assert.ok(
    Object.values(expectedMarks).every((n) => n > 0),
    JSON.stringify(expectedMarks),
  );

  const browser = await launchChromium(executable);
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    /** @type {string[]} */
    const requests = [];
    /** @type {string[]} */
    const problems = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    const charts = await page.$$eval('figure[data-chart]', (figures) =>
      figures.map((f) => {
        const svg = f.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        const marks = svg
          ? [...svg.querySelectorAll('[ecmeta_ssr_type="chart"]')].filter((m) => {
              const b = m.getBoundingClientRect();
              return b.width > 0 && b.height > 0;
            }).length
          : 0;
        return {
          id: f.getAttribute('data-chart'),
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          marks,
          texts: svg ? [...svg.querySelectorAll('text')].map((x) => x.textContent) : [],
        };
      }),
    );
    for (const [id, axes] of Object.entries(AXES)) {
      const chart = charts.find((c) => c.id === id);
      assert.ok(chart, `chart ${id} present`);
      assert.ok(chart.width > 300 && chart.height > 200, `${id} drawn (${chart.width}x${chart.height})`);
      for (const name of axes)
        assert.ok(chart.texts.includes(name), `${id}: axis "${name}" in ${JSON.stringify(chart.texts.slice(0, 40))}`);
      assert.equal(
        chart.marks,
        expectedMarks[/** @type {keyof typeof expectedMarks} */ (id)],
        `${id}: one visible mark per measured value`,
      );
    }
    // The scatter charts say which point is which run, and show its numbers on hover (an SVG <title>).
    const points = await page.$$eval('figure[data-chart]', (figures) =>
      figures.map((f) => ({
        id: f.getAttribute('data-chart'),
        tips: [...f.querySelectorAll('[ecmeta_ssr_type="chart"]')].map(
          (m) => m.querySelector(':scope > title')?.textContent,
        ),
        texts: [...f.querySelectorAll('svg text')].map((x) => x.textContent),
      })),
    );
    /** @type {Record<string, [string, string]>} */
    const scatter = {
      'throughput-cpu': ['throughput_rps', 'cpu_percent_avg'],
      'latency-throughput': ['throughput_rps', 'e2e_mean_ms'],
      'memory-cpu': ['cpu_percent_avg', 'mem_bytes_avg'],
    };
    for (const [id, [xKey, yKey]] of Object.entries(scatter)) {
      const chart = /** @type {{ tips: (string | undefined)[], texts: string[] }} */ (points.find((c) => c.id === id));
      const drawn = runs.filter((r) => r[xKey] != null && r[yKey] != null);
      assert.equal(chart.tips.length, drawn.length, id);
      for (const run of drawn) {
        // The scaling series varies parallel requests; the others are single runs: instances, if known.
        const load =
          run.implementation === 'nodejs'
            ? `${run.parallel} parallel · `
            : run.instances != null
              ? `${run.instances} inst · `
              : run.parallel != null
                ? `${run.parallel} parallel · `
                : '';
        assert.ok(
          chart.texts.includes(`${load}run ${run.run_id}`),
          `${id}: label of run ${run.run_id} in ${chart.texts}`,
        );
        const tip = chart.tips.find((t) => t?.startsWith(`run ${run.run_id} `));
        assert.ok(tip, `${id}: hover text of run ${run.run_id} in ${JSON.stringify(chart.tips)}`);
        const y = yKey === 'mem_bytes_avg' ? run[yKey] / 1024 / 1024 : run[yKey];
        for (const value of [run[xKey], y])
          assert.ok(tip.includes(String(Number(value.toPrecision(5)))), `${id}: ${tip}`);
      }
    }
    assert.equal(problems.length, 0, problems.join('\n'));
    assert.deepEqual(requests, [`file://${file}`], 'nothing loaded but the file itself');
    // The hostile label is shown as text, intact.
    const cells = await page.$$eval('td', (tds) => tds.map((td) => td.textContent));
    assert.ok(cells.includes(HOSTILE_LABEL));
    assert.ok(cells.includes(HOSTILE_PATH), 'the path with its quotes, comma and newline');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'report.png'), fullPage: true });
    assert.ok(fs.statSync(path.join(ARTIFACTS, 'report.png')).size > 10_000);
  } finally {
    await browser.close();
  }
});
