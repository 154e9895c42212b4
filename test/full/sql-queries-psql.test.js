// Every query of sql/queries/ through the real psql, as a user pastes it (trim defaulting to 0.1),
// agreeing with the same file run by paasmon's loader.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { QUERIES_DIR, runSqlQuery } from '../../exporters/postgres/queries/report.js';
import { startQueryRuns } from '../support/report-command-runs.js';

/** @type {Awaited<ReturnType<typeof startQueryRuns>>} */
let seeded;
before(async () => {
  seeded = await startQueryRuns();
});
after(() => seeded?.db.stop());

/** @param {number[]} ids */
const variables = (ids) => ({ runs: `{${ids.join(',')}}`, trim: 0.1 });

test('psql runs every file as it is, with trim defaulting to 0.1', async () => {
  const { db, rounds, bare } = seeded;
  const psql = ['/usr/bin/psql', '/usr/local/bin/psql'].find((p) => fs.existsSync(p));
  assert.ok(psql, 'psql is not installed: apt-get install postgresql-client (.ci/run installs it)');
  for (const file of fs.readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.sql'))) {
    const { stdout } = await promisify(execFile)(psql, [
      db.url,
      '-X',
      '-q',
      '--csv',
      '-v',
      'ON_ERROR_STOP=1',
      '-v',
      `runs={${[...rounds, bare].join(',')}}`,
      '-f',
      `${QUERIES_DIR}${file}`,
    ]);
    const fromPsql = parse(stdout, { columns: true });
    const fromLoader = await runSqlQuery(db.pool, file.replace(/\.sql$/, ''), variables([...rounds, bare]));
    assert.equal(fromPsql.length, fromLoader.length, file);
    const firstColumn = Object.keys(fromLoader[0])[0];
    assert.deepEqual(
      fromPsql.map((/** @type {any} */ r) => String(r[firstColumn])),
      fromLoader.map((r) => (r[firstColumn] === null ? '' : String(r[firstColumn]))),
      file,
    );
    if (file === 'run_comparison.sql') {
      fromPsql.forEach((/** @type {any} */ r, /** @type {number} */ i) => {
        const expected = fromLoader[i].throughput_rps;
        const off = Math.abs(Number(r.throughput_rps) - expected);
        assert.ok(off <= 1e-9 * Math.max(1, Math.abs(expected)), `psql throughput ${r.throughput_rps} vs ${expected}`);
      });
    }
  }
});
