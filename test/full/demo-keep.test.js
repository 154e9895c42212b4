// `paasmon demo --keep` with Prometheus installed: the demo starts it, scraping collect, until Ctrl-C,
// then stops everything.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { assertNothingLeft, demoDirs, exitWithin, startDemo } from '../support/demo.js';

describe('paasmon demo --keep', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-demo-keep-out-'));
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('--keep stays up with Prometheus scraping collect until Ctrl-C, then stops everything and exits 0', async () => {
    const tmpBefore = demoDirs();
    const demo = startDemo(
      ['--impl', 'node', '--duration', '2s', '--instances', '1', '--parallel', '2', '--keep', '--out', out],
      {
        DATABASE_URL: db.url,
      },
    );
    await waitFor(() => /everything stays up until Ctrl-C/.test(demo.output.stdout), {
      timeoutMs: 90_000,
      what: `the demo to stay up\n${demo.output.stdout}\n${demo.output.stderr}`,
    });
    const prometheus = /^prometheus: (http:\/\/127\.0\.0\.1:\d+) /m.exec(demo.output.stdout)?.[1];
    assert.ok(prometheus, `Prometheus is installed here (.ci/run), so the demo starts it:\n${demo.output.stdout}`);
    /** @param {string} query */
    const vector = async (query) =>
      /** @type {any} */ (await (await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(query)}`)).json())
        .data.result;
    await waitFor(async () => (await vector('paasmon_instance_cpu_percent{app="bulletin-board"}')).length === 1, {
      timeoutMs: 30_000,
      what: 'Prometheus to scrape the instance CPU',
    });
    assert.equal((await vector('up{job="paasmon"}'))[0].value[1], '1');
    const grafanaEnv = /^grafana: .* are in (\S+):/m.exec(demo.output.stdout)?.[1];
    const settings = fs.readFileSync(/** @type {string} */ (grafanaEnv), 'utf8');
    assert.match(settings, new RegExp(`^PAASMON_PROMETHEUS_URL=${prometheus}$`, 'm'));
    assert.match(settings, new RegExp(`^PAASMON_PG_HOST=127\\.0\\.0\\.1:${new URL(db.url).port}$`, 'm'));
    assert.ok(!demo.output.stdout.includes('test-password'), 'the database password is not printed');
    demo.child.kill('SIGINT');
    const exit = await exitWithin(demo.exited, 30_000);
    assert.equal(exit.code, 0, `${demo.output.stdout}\n${demo.output.stderr}`);
    const seen = await assertNothingLeft(demo, tmpBefore);
    assert.ok(
      seen.some((p) => /prometheus --config\.file=/.test(p.cmd)),
      'Prometheus ran under the demo',
    );
  });
});
