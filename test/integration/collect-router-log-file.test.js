// `paasmon collect` with ROUTER_LOG_FILE: a gorouter log that keeps growing is ingested as it grows,
// complete lines only, from a byte-offset checkpoint that survives a restart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { ingestFromCheckpoint } from '../../collector/pipeline/pages.js';
import { createRouterLogFileSource } from '../../collector/sources/router-logs/file.js';
import { migrate } from '../../exporters/postgres/schema/migrate.js';
import { SPACE_GUID, makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { startCli, waitFor } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';
import { expectedRow, gorouterLine, makeRequests } from '../support/router-docs.js';

describe('paasmon collect following ROUTER_LOG_FILE', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-follow-'));
  const file = path.join(dir, 'access.log');

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
  });
  after(async () => {
    await sim.close();
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = () =>
    startCli(['collect'], {
      DATABASE_URL: db.url,
      CF_API: sim.url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: 'admin-secret',
      CF_SPACE_GUID: SPACE_GUID,
      POLL_SCHEDULE: '*/5 * * * * *',
      INGEST_SCHEDULE: '* * * * * *',
      ROUTER_LOG_FILE: file,
      ROUTER_LOG_FILE_APP: 'shop',
      PORT: '0',
    });
  /** @param {ReturnType<typeof start>} collector */
  const stop = async (collector) => {
    collector.child.kill('SIGTERM');
    assert.equal((await collector.exited).code, 0, collector.output.stderr);
  };
  const rows = async () =>
    (
      await db.query(`SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at,
      app_name, app_guid, app_index, status, response_time_ms, gorouter_time_ms, correlation_id, vcap_request_id FROM router_requests ORDER BY received_at`)
    ).rows;
  const checkpoint = async () =>
    (await db.query(`SELECT position FROM ingest_checkpoints WHERE source = $1`, [`router-log-file:${file}`])).rows[0]
      ?.position;
  /** @param {import('../support/router-docs.js').TruthRequest[]} requests */
  const expected = (requests) => requests.map((r) => ({ ...expectedRow(r), app_name: 'shop' }));

  it('stores complete lines as they arrive, resumes from its offset after a restart, and rereads a replaced file', async () => {
    const requests = makeRequests(8, Date.parse('2026-11-22T09:00:00Z'), 60_000, 'follow');
    const lines = requests.map((r) => `${gorouterLine(r)}\n`);
    fs.writeFileSync(file, lines.slice(0, 3).join('') + lines[3].slice(0, 50));
    let collector = start();
    await waitFor(async () => (await rows()).length === 3, { what: `three rows\n${collector.output.stderr}` });
    assert.deepEqual(await rows(), expected(requests.slice(0, 3)));
    const inode = fs.statSync(file).ino;
    assert.match(
      await checkpoint(),
      new RegExp(`^${inode}:${Buffer.byteLength(lines.slice(0, 3).join(''))}:`),
      'the half-written line is not consumed',
    );

    fs.appendFileSync(file, lines[3].slice(50) + lines[4]);
    await waitFor(async () => (await rows()).length === 5, { what: 'five rows' });
    await stop(collector);

    fs.appendFileSync(file, lines[5]);
    collector = start();
    await waitFor(async () => (await rows()).length === 6, {
      what: `six rows after the restart\n${collector.output.stderr}`,
    });
    await waitFor(async () => (await checkpoint())?.startsWith(`${inode}:${fs.statSync(file).size}:`), {
      what: 'the checkpoint at the end of the file',
    });
    assert.deepEqual(await rows(), expected(requests.slice(0, 6)), 'nothing read twice');

    // Rotated: a new file (longer than the old offset) is read from its start; its first line is already stored.
    fs.writeFileSync(`${file}.new`, lines[0] + lines[6] + lines[7] + '\n'.repeat(4000));
    fs.renameSync(`${file}.new`, file);
    await waitFor(async () => (await rows()).length === 8, { what: 'the replaced file read' });
    assert.deepEqual(await rows(), expected(requests));
    const health = /** @type {any} */ (
      await (
        await fetch(`http://127.0.0.1:${/"port":(\d+),"schedule"/.exec(collector.output.stderr)?.[1]}/healthz`)
      ).json()
    );
    assert.equal(health.sources['router-log-file'].status, 'ok');
    await stop(collector);
  });

  it('reads a file rotated by copy-and-truncate from its start: nothing skipped, nothing read twice', async () => {
    await migrate(db.pool, pino({ level: 'silent' }));
    const rotated = path.join(dir, 'copytruncate.log');
    const options = { appName: 'rotated', correlationHeader: 'X-Correlation-Id' };
    const increment = () => ingestFromCheckpoint(createRouterLogFileSource(rotated, options), { pool: db.pool });
    const stored = async () =>
      Number((await db.query(`SELECT count(*) AS n FROM router_requests WHERE app_name = 'rotated'`)).rows[0].n);
    const requests = makeRequests(40, Date.parse('2026-11-23T09:00:00Z'), 60_000, 'copytruncate');
    const lines = requests.map((r) => `${gorouterLine(r)}\n`);
    const before = lines.slice(0, 10).join('');
    // The lines after the rotation are as long or longer: the refilled file passes the old offset.
    const after = lines.slice(10).join('');
    assert.ok(Buffer.byteLength(after) > Buffer.byteLength(before));

    fs.writeFileSync(rotated, before);
    const inode = fs.statSync(rotated).ino;
    const first = await increment();
    assert.equal(first.records, 10);

    // logrotate's copytruncate: copy, then truncate in place (same inode), then the router writes on.
    fs.copyFileSync(rotated, `${rotated}.1`);
    fs.truncateSync(rotated, 0);
    fs.appendFileSync(rotated, after);
    assert.equal(fs.statSync(rotated).ino, inode);
    const second = await increment();
    assert.deepEqual(Object.fromEntries(second.skipped), {}, 'no line read from its middle');
    assert.equal(second.records, 30, 'every line of the new content read once');
    assert.equal(await stored(), 40);
    const third = await increment();
    assert.equal(third.records, 0, 'nothing read again');
    assert.equal(await stored(), 40);
  });

  it('resumes from a checkpoint written before fingerprints (`<inode>:<offset>`)', async () => {
    await migrate(db.pool, pino({ level: 'silent' }));
    const old = path.join(dir, 'old-checkpoint.log');
    const requests = makeRequests(6, Date.parse('2026-11-24T09:00:00Z'), 60_000, 'old-checkpoint');
    const lines = requests.map((r) => `${gorouterLine(r)}\n`);
    fs.writeFileSync(old, lines.join(''));
    const offset = Buffer.byteLength(lines.slice(0, 4).join(''));
    await db.query(`INSERT INTO ingest_checkpoints (source, position) VALUES ($1, $2)`, [
      `router-log-file:${old}`,
      `${fs.statSync(old).ino}:${offset}`,
    ]);
    const options = { appName: 'old-checkpoint', correlationHeader: 'X-Correlation-Id' };
    const result = await ingestFromCheckpoint(createRouterLogFileSource(old, options), { pool: db.pool });
    assert.equal(result.records, 2, 'only the lines after the old offset');
    const position = (
      await db.query(`SELECT position FROM ingest_checkpoints WHERE source = $1`, [`router-log-file:${old}`])
    ).rows[0].position;
    assert.match(position, new RegExp(`^${fs.statSync(old).ino}:${fs.statSync(old).size}:\\d+-[0-9a-f]{16}$`));
  });
});
