// `paasmon demo --regression`: baseline and candidate rounds interleaved, the candidate's app adding a
// known delay behind the router, then `paasmon compare` on them: the verdict regressed, the layer behind
// the router, compare's md and json beside the demo's outputs, exit 0, and nothing left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDatabase } from '../support/database.js';
import { assertNothingLeft, demoDirs, exitWithin, startDemo } from '../support/demo.js';

describe('paasmon demo --regression', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-demo-regression-out-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('finds the delay put behind the router: regressed, behind_router; exits 0', async () => {
    const tmpBefore = demoDirs();
    const args = ['--regression', '--impl', 'node', '--duration', '2s', '--warmup', '1s', '--delay', '25ms'];
    const demo = startDemo([...args, '--out', out], { DATABASE_URL: db.url });
    const exit = await exitWithin(demo.exited, 120_000);
    const output = `${demo.output.stdout}\n${demo.output.stderr}`;
    assert.equal(exit.code, 0, output);
    const seen = await assertNothingLeft(demo, tmpBefore);
    const instances = seen.filter((p) => p.cmd.endsWith('sandbox/bulletin-board/server.js'));
    assert.equal(instances.length, 6, 'the app restarted before each of the 3 + 3 rounds');

    const runs = (await db.query(`SELECT id, label, parallel, meta FROM test_runs ORDER BY id`)).rows;
    assert.deepEqual(
      runs.map((r) => r.meta.regression),
      ['baseline', 'candidate', 'baseline', 'candidate', 'baseline', 'candidate'],
      'interleaved',
    );
    assert.ok(runs.every((r) => r.parallel === 4));
    const ids = (/** @type {string} */ side) => runs.filter((r) => r.meta.regression === side).map((r) => r.id);
    // The router's own timing of the app's answers: the delay is there, and only in the candidate's rounds.
    const fastest = async (/** @type {number[]} */ runIds) =>
      (
        await db.query(
          `SELECT min(r.response_time_ms) AS ms FROM router_requests r JOIN test_runs t ON t.id = ANY($1)
          AND r.received_at BETWEEN t.started_at AND t.ended_at WHERE r.path = '/api/board'`,
          [runIds],
        )
      ).rows[0].ms;
    assert.ok((await fastest(ids('candidate'))) >= 24, 'every candidate answer waited the 25 ms');
    assert.ok((await fastest(ids('baseline'))) < 24, 'the baseline answers did not');

    assert.match(demo.output.stdout, new RegExp(`paasmon compare --baseline ${ids('baseline').join(',')} `));
    // The headline wraps at 100 columns wherever its first figure's length puts the break.
    assert.match(demo.output.stdout, /^regressed: .*\n?.*behind the router\s+carries/m, 'compare table headline');
    const closing = demo.output.stdout.trimEnd().split('\n').at(-1) ?? '';
    assert.match(closing, /^compare's verdict: regressed .*exited 3.*the layer that moved: behind the router/);
    assert.match(closing, /\(behind_router\)/);

    const json = JSON.parse(fs.readFileSync(path.join(out, 'compare.json'), 'utf8'));
    assert.equal(json.verdict, 'regressed');
    assert.equal(json.layer, 'behind_router');
    assert.deepEqual(json.baseline.runs, ids('baseline'));
    assert.deepEqual(json.candidate.runs, ids('candidate'));
    const behind = json.layers.mean.layers.find((/** @type {any} */ l) => l.layer === 'behind_router');
    assert.ok(behind.change_ms > 15 && behind.change_ms < 45, JSON.stringify(behind));
    const md = fs.readFileSync(path.join(out, 'compare.md'), 'utf8');
    assert.match(
      md,
      /^\*\*paasmon compare: regressed: .*behind the router carries/,
      'the comment, same seed as the json',
    );
    assert.match(md, new RegExp(`bootstrap seed ${json.seed}\\b`));
  });
});
