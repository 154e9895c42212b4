// A command's start applies the sql/views files only when they differ from those last applied
// (their digest in paasmon_view_files) or a migration ran; `paasmon migrate` applies them always,
// so a view or function changed by hand is put back by it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

/** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
let db;
before(async () => {
  db = await startTestDatabase();
});
after(async () => {
  await db?.stop();
});

const HAND_MADE =
  'CREATE OR REPLACE FUNCTION student_t_975(df integer) RETURNS double precision ' +
  'LANGUAGE sql IMMUTABLE AS $$ SELECT 0::double precision $$';

/** student_t_975(1): 12.706205 as sql/views defines it, 0 as changed by hand. */
const studentT = async () => (await db.query('SELECT student_t_975(1) AS t')).rows[0].t;

/** A command that migrates at its start and changes nothing. */
async function dryRunPrune() {
  const run = await runCli(['prune', '--before', '2020-01-01T00:00:00Z', '--dry-run'], { DATABASE_URL: db.url });
  assert.equal(run.code, 0, run.stderr);
}

test('unchanged view files are not applied again at a command start; paasmon migrate applies them', async () => {
  const first = await runCli(['migrate'], { DATABASE_URL: db.url });
  assert.equal(first.code, 0, first.stderr);
  const { rows } = await db.query('SELECT digest FROM paasmon_view_files');
  assert.equal(rows.length, 1);
  assert.match(rows[0].digest, /^[0-9a-f]{64}$/);

  await db.query(HAND_MADE);
  await dryRunPrune();
  assert.equal(await studentT(), 0, 'a command start skipped the unchanged view files');

  const again = await runCli(['migrate'], { DATABASE_URL: db.url });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout.trim(), 'schema is up to date');
  assert.equal(await studentT(), 12.706205, 'paasmon migrate put the function back');
});

test('view files that differ from those last applied are applied at the next command start', async () => {
  await dryRunPrune();
  await db.query(HAND_MADE);
  // As after an upgrade that changed a file of sql/views: the stored digest is another one.
  await db.query(`UPDATE paasmon_view_files SET digest = 'of an earlier release'`);
  await dryRunPrune();
  assert.equal(await studentT(), 12.706205);
  const { rows } = await db.query('SELECT digest FROM paasmon_view_files');
  assert.match(rows[0].digest, /^[0-9a-f]{64}$/);
});

test('a migration applied at a command start applies the view files too, whatever the digest says', async () => {
  await dryRunPrune();
  await db.query(HAND_MADE);
  // The last migration undone as far as its record goes: the next start applies it again (IF NOT EXISTS).
  await db.query(`DELETE FROM paasmon_migrations WHERE name = (SELECT max(name) FROM paasmon_migrations)`);
  await dryRunPrune();
  assert.equal(await studentT(), 12.706205);
});
