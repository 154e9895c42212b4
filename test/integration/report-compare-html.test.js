// `paasmon report --format html --baseline B --candidate C`: the report's page holds compare's
// section (the verdict line, the interval bars per layer, the figures table) for a known comparison,
// the same as `paasmon compare` gives for the same runs and seed; the other formats refuse the sides.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import escapeHtml from 'escape-html';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { changeText, intervalText } from '../../report/compare/words.js';
import { runCli } from '../support/cli.js';
import { seedLayeredRun } from '../support/compare-runs.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {Record<'baseline' | 'candidate', number[]>} */
const sides = { baseline: [], candidate: [] };
// Put behind the router in every candidate round: a fifth of the app's 8 ms, far beyond the 5 % threshold.
const DELAY = 2;

before(async () => {
  db = await startTestDatabase({ bulk: true });
  await migrate(db.pool, pino({ level: 'silent' }));
  let minute = 0;
  for (let k = 0; k < 3; k++) {
    for (const side of /** @type {const} */ (['baseline', 'candidate'])) {
      const start = new Date(Date.parse('2026-06-01T08:00:00Z') + 60_000 * minute++);
      const behind = side === 'candidate' ? 8 + DELAY : 8;
      sides[side].push(await seedLayeredRun(db.query, { start, seed: minute, label: side, behind, requests: 1500 }));
    }
  }
  await db.query('ANALYZE');
});

after(async () => {
  await db?.stop();
});

/** @param {string} command @param {string[]} args */
const cli = (command, args) =>
  runCli([command, ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, { timeoutMs: 120_000 });

const SIDES = () => ['--baseline', sides.baseline.join(','), '--candidate', sides.candidate.join(',')];

/** The svg bars of a page, in order. @param {string} html */
const barsOf = (html) => [...html.matchAll(/<h[23]>([^<]*)<\/h[23]>\n(<svg [\s\S]*?<\/svg>)/g)];

test("the report's html holds compare's section: verdict, bars per layer and figures, as compare has them", async () => {
  const report = await cli('report', ['--format', 'html', ...SIDES(), '--seed', '7']);
  assert.equal(report.code, 0, `a report, not a gate: ${report.stderr}`);
  const json = await cli('compare', [...SIDES(), '--seed', '7', '--format', 'json']);
  assert.equal(json.code, 3, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.verdict, 'regressed');
  assert.equal(result.layer, 'behind_router');
  const html = report.stdout;
  // Without --runs, the runs of the report are those of both sides.
  const runs = [...sides.baseline, ...sides.candidate].sort((a, b) => a - b);
  assert.match(html, new RegExp(`<p>Runs ${runs.join(', ')};`));
  assert.match(html, /<section class="compare" data-verdict="regressed">\n<h2>Baseline against candidate<\/h2>/);
  assert.ok(html.includes(`<p class="verdict"><strong>${escapeHtml(result.headline)}</strong></p>`), html);
  // Before the report's own charts: the verdict is what a reader looks for first.
  assert.ok(html.indexOf('class="compare"') < html.indexOf('<figure data-chart='));
  const bars = barsOf(html);
  assert.deepEqual(
    bars.map((m) => m[1]),
    ['end to end', 'outside the router', 'in the router', 'behind the router', 'the app and the load'],
  );
  // Each bar's title is its figure's change, interval and verdict from compare's json.
  for (const f of result.figures.filter((/** @type {any} */ f) => f.interval && f.layer !== null)) {
    const title = `<title>${escapeHtml(`${f.label}: ${changeText(f)} ${intervalText(f)}, ${f.verdict}`)}</title>`;
    assert.ok(html.includes(title), `the bar of ${f.name}: ${title}`);
  }
  const behind = result.figures.find((/** @type {any} */ f) => f.name === 'behind_router_mean_ms');
  assert.equal(behind.verdict, 'regressed');
  // The candidate's app took DELAY ms more of its 8: the interval holds that change.
  assert.ok(behind.interval[0] < DELAY / 8 && DELAY / 8 < behind.interval[1], JSON.stringify(behind));
  const behindSvg = bars.find((m) => m[1] === 'behind the router')?.[2] ?? '';
  assert.match(behindSvg, /stroke="#c0392b" stroke-width="4"/, 'the bar is drawn in the colour of a regression');
  for (const f of result.figures)
    assert.ok(html.includes(`<td>${escapeHtml(`${f.label} ${f.unit}`)}</td>`), `the figures table has ${f.name}`);
  // compare's own page: the same bars (one renderer), the headline as its title.
  const page = await cli('compare', [...SIDES(), '--seed', '7', '--format', 'html']);
  assert.equal(page.code, 3, page.stderr);
  assert.ok(page.stdout.includes(`<h1>${escapeHtml(result.headline)}</h1>`), page.stdout);
  assert.deepEqual(
    barsOf(page.stdout).map((m) => m[2]),
    bars.map((m) => m[2]),
  );
  assert.doesNotMatch(html, /<script/);
});

test('with --runs the report covers those runs and still holds the comparison; without the sides, no section', async () => {
  const runs = sides.baseline.slice(0, 2).join(',');
  const report = await cli('report', ['--format', 'html', '--runs', runs, ...SIDES(), '--seed', '7']);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, new RegExp(`<p>Runs ${sides.baseline.slice(0, 2).join(', ')};`));
  assert.match(report.stdout, /data-verdict="regressed"/);
  const plain = await cli('report', ['--format', 'html', '--runs', runs]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.doesNotMatch(plain.stdout, /class="compare"/);
});

test('bad usage of the sides exits 2 with one line', async () => {
  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [['--format', 'md', ...SIDES()], /--baseline and --candidate add the comparison to --format html; for md/],
    [['--format', 'html', '--baseline', sides.baseline.join(',')], /--baseline and --candidate go together/],
    [['--format', 'html', '--runs', '1', '--seed', '7'], /--seed is the seed of the comparison/],
    [['--format', 'html', '--baseline', '999999', '--candidate', '1'], /--baseline: no such run: 999999/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await cli('report', args);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, message);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at /);
  }
});
