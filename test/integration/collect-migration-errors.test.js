// Issue 25 item 5: `collect` retried every migration failure for ever. Now only losing the database
// (refused, gone, shutting down) is retried; a migration the database refuses (an object a user
// created in its way, no permission) ends the start: exit 1, one line naming the file and the error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../support/cli.js';
import { collectEnv } from '../support/collect.js';
import { freePort, startTestDatabase } from '../support/database.js';

describe('paasmon collect: migrations that cannot succeed', { timeout: 120_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
  });
  after(async () => {
    await sim?.close();
    await db?.stop();
  });

  /**
   * Runs collect until it exits on its own (or 30 s, then fails the test).
   * @param {Record<string, string>} env
   */
  async function collectUntilExit(env) {
    const cli = startCli(['collect'], env);
    const startedAt = Date.now();
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), 30_000);
    try {
      const exit = await cli.exited;
      return { exit, tookMs: Date.now() - startedAt, stderr: cli.output.stderr };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The lines of stderr that are not JSON log lines. @param {string} stderr */
  const plainLines = (stderr) => stderr.split('\n').filter((l) => l && !l.startsWith('{'));

  it('exits 1 at once, naming the migration and the error, when an object of the user is in its way', async () => {
    const database = `conflict_${process.pid}`;
    await db.query(`CREATE DATABASE ${database}`);
    const url = db.url.replace(/\/postgres$/, `/${database}`);
    const owner = new pg.Client({ connectionString: url });
    await owner.connect();
    // A view where migration 001 creates the table instance_samples.
    await owner.query('CREATE VIEW instance_samples AS SELECT 1 AS x');
    await owner.end();

    const { exit, tookMs, stderr } = await collectUntilExit(collectEnv({ url }, sim));
    assert.deepEqual(exit, { code: 1, signal: null }, stderr);
    assert.ok(tookMs < 15_000, `exited in ${tookMs} ms`);
    assert.deepEqual(plainLines(stderr), [
      'paasmon: postgres: migration sql/migrations/001_schema.sql failed: ' +
        'relation "instance_samples" already exists (SQLSTATE 42P07)',
    ]);
    assert.doesNotMatch(stderr, /migration failed; retrying/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });

  it('exits 1 naming the migrations table when the user may not create tables', async () => {
    // PostgreSQL 15 and later let only the owner create objects in the schema public.
    await db.query("CREATE ROLE reader LOGIN PASSWORD 'reader-password'");
    const url = db.url.replace('paasmon:test-password@', 'reader:reader-password@');
    const { exit, tookMs, stderr } = await collectUntilExit(collectEnv({ url }, sim));
    assert.deepEqual(exit, { code: 1, signal: null }, stderr);
    assert.ok(tookMs < 15_000, `exited in ${tookMs} ms`);
    assert.deepEqual(plainLines(stderr), [
      'paasmon: postgres: migrations (table paasmon_migrations) failed: ' +
        'permission denied for schema public (SQLSTATE 42501)',
    ]);
    assert.ok(!stderr.includes('reader-password'), 'no secret in the output');
  });

  it('keeps retrying while the database refuses connections', async () => {
    const port = await freePort();
    const url = `postgres://paasmon:test-password@127.0.0.1:${port}/postgres`;
    const cli = startCli(['collect'], collectEnv({ url }, sim));
    try {
      await waitFor(() => (cli.output.stderr.match(/postgres: migration failed; retrying/g) ?? []).length >= 2, {
        what: `two retries\n${cli.output.stderr}`,
      });
      assert.match(cli.output.stderr, /"code":"ECONNREFUSED"/);
      assert.equal(cli.child.exitCode, null, 'still running');
      cli.child.kill('SIGTERM');
      assert.deepEqual(await cli.exited, { code: 0, signal: null });
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  });
});
