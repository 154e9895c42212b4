// `paasmon ingest --file PATH|-` with a `cf logs APP --recent` capture, into a real PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CLI, childEnv, runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { expectedRow } from '../support/router-docs.js';

const CAPTURE = new URL('../fixtures/router-logs/cf-logs-recent.txt', import.meta.url);
/** @type {import('../support/router-docs.js').TruthRequest[]} */
const truth = JSON.parse(
  fs.readFileSync(new URL('../fixtures/router-logs/cf-logs-recent.expected.json', import.meta.url), 'utf8'),
);

describe('paasmon ingest --file', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  before(async () => {
    db = await startTestDatabase();
  });
  after(async () => {
    await db.stop();
  });

  const rows = async () =>
    (
      await db.query(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at,
      app_name, app_guid, app_index, status, response_time_ms, gorouter_time_ms, correlation_id, vcap_request_id FROM router_requests ORDER BY vcap_request_id`)
    ).rows;

  it('stores every RTR line of a capture with exact values, skips the rest by reason, and is idempotent', async () => {
    const result = await runCli(['ingest', '--file', CAPTURE.pathname, '--app', 'shop'], { DATABASE_URL: db.url });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout.trim(),
      `12 router requests read from ${CAPTURE.pathname}, 12 new rows; skipped: not_gorouter=1, not_rtr=4, truncated=1`,
    );
    assert.deepEqual(
      await rows(),
      truth.map(expectedRow).sort((a, b) => a.vcap_request_id.localeCompare(b.vcap_request_id)),
    );
    const again = await runCli(['ingest', '--file', CAPTURE.pathname, '--app', 'shop'], { DATABASE_URL: db.url });
    assert.match(again.stdout, /12 router requests read from .*, 0 new rows/);
    assert.equal((await rows()).length, 12);
  });

  it('stores a line that appears twice in one batch once', async () => {
    await db.query('TRUNCATE router_requests');
    const doubled = `${fs.readFileSync(CAPTURE, 'utf8')}${fs.readFileSync(CAPTURE, 'utf8')}`;
    const file = `${fs.mkdtempSync('/tmp/paasmon-dup-')}/doubled.txt`;
    fs.writeFileSync(file, doubled);
    const result = await runCli(['ingest', '--file', file, '--app', 'shop'], { DATABASE_URL: db.url });
    assert.match(result.stdout, /^24 router requests read from .*, 12 new rows;/);
    assert.equal((await rows()).length, 12);
  });

  it('reads stdin with --file -', async () => {
    await db.query('TRUNCATE router_requests');
    const child = spawn(CLI, ['ingest', '--file', '-', '--app', 'shop'], {
      env: childEnv({ DATABASE_URL: db.url }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    fs.createReadStream(CAPTURE).pipe(child.stdin);
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.match(stdout, /^12 router requests read from stdin, 12 new rows/);
    assert.equal((await rows()).length, 12);
  });

  it('exits 2 on a bad window and when there is nothing to read from', async () => {
    const bad = await runCli(['ingest', '--from', 'yesterday', '--to', 'now'], {
      DATABASE_URL: db.url,
      SEARCH_URL: 'http://127.0.0.1:9',
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--from must be an ISO 8601 time with a zone/);
    const none = await runCli(['ingest'], { DATABASE_URL: db.url });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /SEARCH_URL is required/);
  });
});
