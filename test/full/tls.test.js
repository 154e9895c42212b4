// TLS verification is on by default everywhere paasmon connects: the Cloud Controller (and UAA,
// same client), the search server, and PostgreSQL, whose sslmode comes from DATABASE_URL. A
// self-signed certificate is refused unless the user says otherwise; no secret reaches the output.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { selfSignedCertificate } from '../support/certificate.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const SECRET = 'tls-test-secret-3141';

describe('TLS verification on by default', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-tls-'));
  /** @type {https.Server} */
  let server;
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let plain;
  let url = '';
  let key = '';
  let cert = '';
  before(async () => {
    fs.chmodSync(dir, 0o755);
    ({ key, cert } = selfSignedCertificate(dir, 'server'));
    // Any JSON to anything: only the handshake matters here.
    server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    plain = await startTestDatabase();
    url = `https://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  });
  after(async () => {
    server?.close();
    await plain?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** @param {{ code: number | null, stdout: string, stderr: string }} result */
  const noSecret = (result) => assert.ok(!`${result.stdout}${result.stderr}`.includes(SECRET), 'no secret in output');

  it('Cloud Controller: a self-signed certificate is refused unless CF_SKIP_SSL_VALIDATION=true', async () => {
    const env = {
      CF_API: url,
      CF_USERNAME: 'admin',
      CF_PASSWORD: SECRET,
      CF_APPS: 'shop',
      DATABASE_URL: plain.url,
    };
    const refused = await runCli(['poll'], env);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout + refused.stderr,
      /127\.0\.0\.1:\d+: TLS certificate not trusted .*self[- ]signed certificate/i,
    );
    assert.doesNotMatch(refused.stderr, /retrying/, 'an untrusted certificate is not retried');
    noSecret(refused);
    const skipped = await runCli(['poll'], { ...env, CF_SKIP_SSL_VALIDATION: 'true' });
    assert.equal(skipped.code, 1, "fails later, on the stand-in's empty answer");
    assert.doesNotMatch(skipped.stderr, /certificate/i);
    noSecret(skipped);
  });

  it('search server: a self-signed certificate is refused', async () => {
    const result = await runCli(['ingest', '--from', 'now-1h', '--to', 'now'], {
      SEARCH_URL: url,
      SEARCH_PASSWORD: SECRET,
      SEARCH_USERNAME: 'r',
      DATABASE_URL: plain.url,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /self[- ]signed certificate/i);
    noSecret(result);
  });

  it('a library error that quotes its input shows no secret', async () => {
    const result = await runCli(['migrate'], {
      DATABASE_URL: `postgres://paasmon:${SECRET}@127.0.0.1:1/db?sslcert=${dir}/${SECRET}.crt`,
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^paasmon: ENOENT: no such file or directory, open '.*\[REDACTED\]\.crt'$/m);
    noSecret(result);
  });

  it('PostgreSQL: sslmode from DATABASE_URL is honoured, with the certificate verified', async (t) => {
    // PostgreSQL reads its key as its own user, and only a key no one else can read.
    const pgKey = path.join(dir, 'pg.key');
    fs.copyFileSync(key, pgKey);
    const { uid, gid } = fs.statSync(dir);
    const owner = os.userInfo().uid === 0 ? Number(execFileSync('id', ['-u', 'postgres']).toString()) : uid;
    fs.chownSync(pgKey, owner, gid);
    fs.chmodSync(pgKey, 0o600);
    const db = await startTestDatabase({
      postgresFlags: ['-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${pgKey}`],
    });
    t.after(() => db.stop());
    const base = db.url.replace('test-password', SECRET);
    await db.query(`ALTER USER paasmon PASSWORD '${SECRET}'`);
    const at = (/** @type {string} */ query) => ({ DATABASE_URL: `${base}?${query}` });
    const required = await runCli(['migrate'], at('sslmode=require'));
    assert.equal(required.code, 1);
    assert.match(required.stderr, /self[- ]signed certificate/i);
    noSecret(required);
    const trusted = await runCli(['migrate'], at(`sslmode=verify-full&sslrootcert=${cert}`));
    assert.equal(trusted.code, 0, trusted.stderr);
    const optedOut = await runCli(['migrate'], at('sslmode=no-verify'));
    assert.equal(optedOut.code, 0, optedOut.stderr);
  });
});
