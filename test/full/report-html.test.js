// `paasmon report --format html` opened offline in a real headless Chromium: every chart drawn with
// its axes and one mark per measured value, hover texts, nothing loaded, hostile text inert.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findChromium, launchChromium } from '../support/chromium.js';
import { HOSTILE_LABEL, HOSTILE_PATH, LOADS, startReportRuns } from '../support/report-command-runs.js';

const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** @type {Awaited<ReturnType<typeof startReportRuns>>} */
let runs;
let dir = '';

before(async () => {
  runs = await startReportRuns();
  ({ dir } = runs);
});

after(async () => {
  await runs?.stop();
});

const all = () => runs.all();
const report = (/** @type {string[]} */ args) => runs.report(args);

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

test('html: self-contained, opens offline in headless Chromium with every chart drawn, no script, no request', async () => {
  const executable = findChromium();
  assert.ok(executable, 'Chromium is not installed: apt-get install chromium (.ci/run installs it)');
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
