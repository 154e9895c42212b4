// `paasmon compare` as a user runs it, on runs built in PostgreSQL as the load generator and the
// router's records leave them: a delay put into one layer at a time is named and regresses, two
// sides of one setting do not, the reverse improves, another load is not comparable; every
// format, the exit codes, and the data path (blocks and histograms built in SQL) against raw rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { loadCompareData } from '../../exporters/postgres/queries/compare.js';
import { addTo, denseFor, quantiles, RELATIVE_ERROR } from '../../report/compare/histogram.js';
import { runCli } from '../support/cli.js';
import { runData } from '../support/compare-data.js';
import { seedLayeredRun } from '../support/compare-runs.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
/** @type {Record<string, number[]>} */
const sides = {};
const DELAY = 2;

before(async () => {
  db = await startTestDatabase({ bulk: true });
  await migrate(db.pool, pino({ level: 'silent' }));
  let minute = 0;
  const start = () => new Date(Date.parse('2026-06-01T08:00:00Z') + 60_000 * minute++);
  /** @param {string} name @param {Partial<import('../support/compare-runs.js').LayeredRun>} spec */
  const side = async (name, spec, rounds = 3) => {
    sides[name] = [];
    for (let k = 0; k < rounds; k++) {
      const seed = 100 * Object.keys(sides).length + k;
      sides[name].push(await seedLayeredRun(db.query, { start: start(), seed, label: name, ...spec }));
    }
  };
  await side('baseline', {});
  await side('again', {});
  await side('outside', { outside: 2 + DELAY });
  await side('router', { router: 0.5 + DELAY });
  await side('behind', { behind: 8 + DELAY });
  await side('busier', { parallel: 16 });
  await side('imported', { tool: 'k6' });
  await side('unpolled', { samples: false });
  await side('outlier', {}, 4);
  sides.outlier.push(await seedLayeredRun(db.query, { start: start(), seed: 999, label: 'outlier', level: 1.6 }));
  await db.query('ANALYZE');
});

after(async () => {
  await db?.stop();
});

/** @param {string[]} args */
const compare = (args) =>
  runCli(['compare', '--seed', '7', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, { timeoutMs: 120_000 });
/** @param {string} b @param {string} c @param {string[]} [more] */
const json = async (b, c, more = []) => {
  const { code, stdout, stderr } = await compare([
    '--baseline',
    sides[b].join(','),
    '--candidate',
    sides[c].join(','),
    '--format',
    'json',
    ...more,
  ]);
  assert.ok(stdout.startsWith('{'), `${stdout}\n${stderr}`);
  return { code, result: JSON.parse(stdout) };
};
/** @param {any} result @param {string} name */
const figure = (result, name) => result.figures.find((/** @type {any} */ f) => f.name === name);

describe('paasmon compare', () => {
  for (const [name, layer] of [
    ['outside', 'outside_router'],
    ['router', 'router'],
    ['behind', 'behind_router'],
  ]) {
    it(`names the layer of a delay ${layer} and regresses (exit 3)`, async () => {
      const { code, result } = await json('baseline', name);
      assert.equal(result.verdict, 'regressed', result.headline);
      assert.equal(code, 3);
      assert.equal(result.layer, layer, JSON.stringify(result.layers));
      assert.equal(figure(result, 'e2e_p95_ms').verdict, 'regressed');
      assert.equal(figure(result, `${layer}_mean_ms`).verdict, 'regressed');
      const moved = result.layers.mean.layers.find((/** @type {any} */ l) => l.layer === layer);
      assert.ok(Math.abs(moved.change_ms - DELAY) < 0.2, JSON.stringify(moved));
      assert.ok(Math.abs(result.layers.mean.total_change_ms - DELAY) < 0.2);
      assert.equal(result.layers.tail.layer, layer);
      assert.match(result.headline, /^regressed: e2e p95 \+\d/);
    });
  }

  it("finds two sides of one setting unchanged (exit 0), and imported runs as the load generator's", async () => {
    for (const other of ['again', 'imported']) {
      const { code, result } = await json('baseline', other);
      assert.equal(result.verdict, 'unchanged', result.headline);
      assert.equal(code, 0);
      assert.equal(result.layer, null);
      for (const f of result.figures.filter((/** @type {any} */ x) => x.gated)) assert.equal(f.verdict, 'unchanged');
    }
  });

  it('finds the reverse of a regression improved (exit 0), with the same layer', async () => {
    const { code, result } = await json('behind', 'baseline');
    assert.equal(result.verdict, 'improved', result.headline);
    assert.equal(code, 0);
    assert.equal(result.layer, 'behind_router');
  });

  it('refuses other parallel requests as not comparable (exit 5) unless --force', async () => {
    const refused = await json('baseline', 'busier');
    assert.equal(refused.code, 5);
    assert.equal(refused.result.verdict, 'not_comparable');
    assert.match(refused.result.comparable.reasons.join(), /parallel requests differ: baseline 8, candidate 16/);
    const forced = await json('baseline', 'busier', ['--force']);
    assert.notEqual(forced.result.verdict, 'not_comparable');
    assert.equal(forced.result.comparable.forced, true);
    assert.match(forced.result.headline, /--force/);
  });

  it('leaves a gated figure without data out of the gate, with the command that collects it', async () => {
    const { code, result } = await json('baseline', 'unpolled');
    assert.equal(result.verdict, 'unchanged', result.headline);
    assert.equal(code, 0);
    assert.equal(figure(result, 'cpu_ms_per_request').verdict, 'missing');
    assert.match(result.missing.join('\n'), /cpu_ms_per_request: no instance samples .*paasmon collect/);
  });

  it('flags a round far from the others of its side and leaves it out', async () => {
    const { result } = await json('baseline', 'outlier');
    const outlier = sides.outlier.at(-1);
    assert.ok(
      result.candidate.outliers.some((/** @type {any} */ o) => o.runId === outlier),
      JSON.stringify(result.candidate),
    );
    assert.equal(result.candidate.rounds, 4);
    assert.equal(result.verdict, 'unchanged', result.headline);
  });

  it('prints a table within 100 columns, a markdown comment with a layer column, JUnit with one failure', async () => {
    const args = ['--baseline', sides.baseline.join(','), '--candidate', sides.behind.join(',')];
    const table = await compare(args);
    assert.equal(table.code, 3, table.stderr);
    const lines = table.stdout.split('\n');
    assert.match(lines[0], /^regressed: e2e p95 \+/);
    assert.match(table.stdout.replace(/\n {2}/g, ' '), /behind the router carries \+2\.\d+ ms/);
    for (const line of lines) assert.ok(line.length <= 100, `${line.length}: ${line}`);
    assert.match(table.stdout, /seed 7/);
    const md = await compare([...args, '--format', 'md']);
    assert.match(md.stdout, /^\| gate \| figure \| layer \|/m);
    assert.match(md.stdout, /behind router mean ms \| behind the router \|/);
    const junit = await compare([...args, '--format', 'junit']);
    assert.equal(junit.code, 3);
    assert.match(junit.stdout, /<testsuite name="paasmon compare" tests="4" failures="1"/);
    assert.match(junit.stdout, /name="e2e_p95_ms"><failure message="regressed: \+/);
    const html = await compare([...args, '--format', 'html']);
    assert.equal(html.code, 3);
    assert.match(html.stdout, /^<!doctype html>/);
    assert.match(html.stdout, /<h2>behind the router<\/h2>\n<svg /);
    assert.doesNotMatch(html.stdout, /<script/);
  });

  it('gives the same answer for the same seed, and reads a label as every run with it', async () => {
    const first = await compare(['--baseline', 'label:baseline', '--candidate', 'outside', '--format', 'json']);
    const second = await compare([
      '--baseline',
      sides.baseline.join(','),
      '--candidate',
      'outside',
      '--format',
      'json',
    ]);
    assert.equal(first.code, 3, first.stderr);
    assert.equal(first.stdout, second.stdout);
  });

  it('rejects bad usage with one line and exit 2', async () => {
    const cases = [
      [['--baseline', '999999', '--candidate', sides.again.join(',')], /no such run: 999999/],
      [['--baseline', sides.baseline.join(','), '--candidate', sides.baseline.join(',')], /on both sides/],
      [['--baseline', 'nobody', '--candidate', 'again'], /--baseline selects no run/],
      [['--baseline', 'baseline', '--candidate', 'again', '--gate', 'e2e_p42'], /--gate .*unknown: e2e_p42/],
      [['--baseline', 'baseline', '--candidate', 'again', '--format', 'xml'], /--format must be one of/],
      [['--candidate', 'again'], /required option '--baseline <runs>'/],
    ];
    for (const [args, message] of /** @type {Array<[string[], RegExp]>} */ (cases)) {
      const { code, stderr } = await compare(args);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, message);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    }
  });

  it('aggregates in SQL as the raw rows do, with percentiles within the histogram error of percentile_cont', async () => {
    const runId = sides.behind[0];
    const data = /** @type {any} */ ((await loadCompareData(db.pool, [runId], { trim: 0.1 })).get(runId));
    const { rows } = await db.query(
      `SELECT extract(epoch FROM l.started_at - $2::timestamptz)::double precision AS t, l.duration_ms AS e2e,
              x.response_time_ms AS rt, x.gorouter_time_ms AS gt, l.status, x.path
       FROM loadgen_requests l LEFT JOIN router_requests x ON x.correlation_id = l.correlation_id
       WHERE l.run_id = $1 AND l.started_at BETWEEN $2 AND $3`,
      [runId, data.run.window_start, data.run.window_end],
    );
    const reference = runData({ window_s: data.run.window_s }, rows, { blocks: 32 });
    for (const key of ['n', 'ok', 'errors', 'matched']) {
      assert.deepEqual(
        data.blocks.map((/** @type {any} */ b) => b[key]),
        reference.blocks.map((b) => /** @type {any} */ (b)[key]),
        key,
      );
    }
    for (const key of ['e2eSum', 'outsideSum', 'routerSum', 'behindSum']) {
      data.blocks.forEach((/** @type {any} */ b, /** @type {number} */ i) =>
        assert.ok(Math.abs(b[key] - /** @type {any} */ (reference.blocks[i])[key]) < 1e-6, `${key} block ${i}`),
      );
    }
    const lists = data.blocks.map((/** @type {any} */ b) => b.hist);
    const dense = denseFor(lists);
    for (const list of lists) addTo(dense, list);
    const fractions = [0.5, 0.95, 0.99];
    const ours = quantiles(dense, fractions);
    const { rows: exact } = await db.query(
      `SELECT percentile_cont($4::float8[]) WITHIN GROUP (ORDER BY duration_ms) AS p FROM loadgen_requests
       WHERE run_id = $1 AND started_at BETWEEN $2 AND $3`,
      [runId, data.run.window_start, data.run.window_end, fractions],
    );
    fractions.forEach((q, i) => {
      const error = Math.abs(/** @type {number} */ (ours[i]) - exact[0].p[i]) / exact[0].p[i];
      assert.ok(error <= RELATIVE_ERROR, `p${100 * q}: ${ours[i]} vs ${exact[0].p[i]}`);
    });
  });

  it('counts a request with two router records once, by its first record', async () => {
    const runId = await seedLayeredRun(db.query, { start: new Date('2026-06-02T08:00:00Z'), seed: 777, label: 'dup' });
    // An app that forwarded the correlation id on a call of its own: a later record, far slower.
    await db.query(
      `INSERT INTO router_requests (received_at, app_guid, app_name, path, status, response_time_ms, gorouter_time_ms,
                                    vcap_request_id, correlation_id)
       SELECT received_at + interval '1 second', app_guid, app_name, path, status, 1000, 0, vcap_request_id || '-2',
              correlation_id
       FROM router_requests WHERE correlation_id LIKE $1 LIMIT 50`,
      [`${runId}-%`],
    );
    const data = /** @type {any} */ ((await loadCompareData(db.pool, [runId], { trim: 0 })).get(runId));
    const requests = data.blocks.reduce((/** @type {number} */ s, /** @type {any} */ b) => s + b.n, 0);
    const matched = data.blocks.reduce((/** @type {number} */ s, /** @type {any} */ b) => s + b.matched, 0);
    assert.equal(requests, 3000);
    assert.equal(matched, 3000);
    const behind = data.blocks.reduce((/** @type {number} */ s, /** @type {any} */ b) => s + b.behindSum, 0) / matched;
    assert.ok(Math.abs(behind - 8) < 0.5, `behind the router ${behind} ms: the first records only`);
  });
});
