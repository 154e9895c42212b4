// `paasmon demo --regression --impl java`: the Java sample app adds the same known delay behind the
// router (BULLETIN_BOARD_DELAY_MS) in the candidate's rounds, and compare finds it there. Needs a JDK.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDatabase } from '../support/database.js';
import { assertNothingLeft, demoDirs, exitWithin, startDemo } from '../support/demo.js';

describe('paasmon demo --regression --impl java', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-demo-regression-java-out-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('finds the delay the Java app adds behind the router: regressed, behind_router', async () => {
    const tmpBefore = demoDirs();
    const args = ['--regression', '--impl', 'java', '--duration', '2s', '--warmup', '2s', '--delay', '25ms'];
    const demo = startDemo([...args, '--out', out], { DATABASE_URL: db.url });
    const exit = await exitWithin(demo.exited, 180_000);
    assert.equal(exit.code, 0, `${demo.output.stdout}\n${demo.output.stderr}`);
    const seen = await assertNothingLeft(demo, tmpBefore);
    const javas = seen.filter((p) => /\bjava .*-cp \S*java-classes\S* Main$/.test(p.cmd));
    assert.equal(javas.length, 6, 'a Java instance per round');

    const runs = (await db.query(`SELECT id, implementation, meta FROM test_runs ORDER BY id`)).rows;
    assert.ok(runs.every((r) => r.implementation === 'java'));
    const candidates = runs.filter((r) => r.meta.regression === 'candidate').map((r) => r.id);
    const [{ ms }] = (
      await db.query(
        `SELECT min(r.response_time_ms) AS ms FROM router_requests r JOIN test_runs t ON t.id = ANY($1)
        AND r.received_at BETWEEN t.started_at AND t.ended_at WHERE r.path = '/api/board'`,
        [candidates],
      )
    ).rows;
    assert.ok(ms >= 24, `every candidate answer waited the 25 ms (fastest ${ms} ms)`);

    const json = JSON.parse(fs.readFileSync(path.join(out, 'compare.json'), 'utf8'));
    // The delay's own layer moves whatever the gate says: the mean change is carried behind the router.
    assert.equal(json.layers.mean.layer, 'behind_router', json.headline);
    const behind = json.figures.find((/** @type {any} */ f) => f.name === 'behind_router_mean_ms');
    assert.equal(behind.verdict, 'regressed', json.headline);
    // A JVM's 2 s rounds on two shared cores can leave the gate inconclusive (the demo then says so).
    if (json.verdict === 'regressed') {
      assert.equal(json.layer, 'behind_router');
      assert.match(demo.output.stdout, /the layer that moved: behind the router \(behind_router\)/);
    } else {
      assert.equal(json.verdict, 'inconclusive', json.headline);
      assert.match(demo.output.stdout, /did not stand out of this machine's noise/);
    }
  });
});
