// `paasmon collect` with ROUTER_LOG_FILE: a gorouter log that keeps growing is ingested as it grows,
// complete lines only, from a byte-offset checkpoint that survives a restart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
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
    assert.equal(
      await checkpoint(),
      `${inode}:${Buffer.byteLength(lines.slice(0, 3).join(''))}`,
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
    await waitFor(async () => (await checkpoint()) === `${inode}:${fs.statSync(file).size}`, {
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
});
