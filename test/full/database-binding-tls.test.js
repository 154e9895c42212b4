// A bound PostgreSQL service that requires TLS and a client certificate (as managed databases do) is reached
// with the TLS settings of its binding's credentials: the CA and the client certificate as PEM text, the mode
// from require_ssl or sslmode. A server certificate of another CA is refused in one line.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { certificateAuthority, signedCertificate } from '../support/certificate.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const SECRET = 'binding-tls-secret-2718';
const STACK_FRAME = /^\s+at /m;

describe('PostgreSQL binding with TLS', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-binding-tls-'));
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Record<string, string>} PEM text */
  const pem = {};
  let uri = '';

  before(async () => {
    fs.chmodSync(dir, 0o755);
    const ca = certificateAuthority(dir, 'paasmon-test-ca');
    const other = certificateAuthority(dir, 'other-ca');
    const server = signedCertificate(dir, 'server', ca, {
      commonName: 'localhost',
      altNames: 'DNS:localhost,IP:127.0.0.1',
    });
    const client = signedCertificate(dir, 'client', ca, { commonName: 'paasmon' });
    // PostgreSQL reads its key as its own user, and only a key no one else can read.
    const { uid, gid } = fs.statSync(dir);
    const owner = os.userInfo().uid === 0 ? Number(execFileSync('id', ['-u', 'postgres']).toString()) : uid;
    fs.chownSync(server.key, owner, gid);
    fs.chmodSync(server.key, 0o600);
    for (const file of [ca.cert, server.cert]) fs.chmodSync(file, 0o644);
    Object.assign(pem, {
      ca: fs.readFileSync(ca.cert, 'utf8'),
      otherCa: fs.readFileSync(other.cert, 'utf8'),
      cert: fs.readFileSync(client.cert, 'utf8'),
      key: fs.readFileSync(client.key, 'utf8'),
    });
    db = await startTestDatabase({
      postgresFlags: [
        ...['-c', 'ssl=on', '-c', `ssl_cert_file=${server.cert}`, '-c', `ssl_key_file=${server.key}`],
        ...['-c', `ssl_ca_file=${ca.cert}`],
      ],
    });
    await db.query(`ALTER USER paasmon PASSWORD '${SECRET}'`);
    // Only TLS connections with a client certificate of the CA, as a managed database in client-certificate mode.
    const hba = path.join(db.dir, 'data', 'pg_hba.conf');
    fs.writeFileSync(
      hba,
      'local all all password\n' +
        'hostssl all all 127.0.0.1/32 password clientcert=verify-ca\n' +
        'hostssl all all ::1/128 password clientcert=verify-ca\n',
    );
    await db.query('SELECT pg_reload_conf()');
    uri = `postgresql://paasmon:${SECRET}@127.0.0.1:${db.port}/postgres`;
  });
  after(async () => {
    await db?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An app bound to a Cloud Service Broker PostgreSQL. @param {Record<string, unknown>} credentials */
  const bound = (credentials) => ({
    VCAP_SERVICES: JSON.stringify({
      'csb-google-postgres': [{ name: 'paasmon-db', label: 'csb-google-postgres', tags: ['postgresql'], credentials }],
    }),
  });
  /** @param {{ code: number | null, stdout: string, stderr: string }} result */
  const oneLine = (result) => {
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.doesNotMatch(result.stderr, STACK_FRAME);
    assert.ok(!`${result.stdout}${result.stderr}`.includes(SECRET), 'no password in the output');
    assert.ok(!`${result.stdout}${result.stderr}`.includes('PRIVATE KEY'), 'no key in the output');
    return lines[0];
  };

  it('require_ssl with the CA and the client certificate as PEM in the credentials: connects', async () => {
    const result = await runCli(
      ['migrate'],
      bound({ uri, require_ssl: true, sslrootcert: pem.ca, sslcert: pem.cert, sslkey: pem.key }),
    );
    assert.equal(result.code, 0, result.stderr);
    const applied = await runCli(
      ['migrate'],
      bound({ uri, sslmode: 'verify-full', sslrootcert: pem.ca, sslcert: pem.cert, sslkey: pem.key }),
    );
    assert.equal(applied.code, 0, `verify-full against the private CA: ${applied.stderr}`);
  });

  it('a server certificate of another CA fails verify-full in one line naming the setting', async () => {
    const result = await runCli(
      ['migrate'],
      bound({ uri, sslmode: 'verify-full', sslrootcert: pem.otherCa, sslcert: pem.cert, sslkey: pem.key }),
    );
    assert.equal(result.code, 1);
    assert.match(
      oneLine(result),
      new RegExp(
        `^paasmon: PostgreSQL at 127\\.0\\.0\\.1:${db.port} from the bound PostgreSQL service \\(VCAP_SERVICES\\): ` +
          'its TLS certificate is not trusted \\([A-Z_]+: .*\\); give the CA that signed it as ' +
          'credentials\\.sslrootcert of the binding$',
      ),
    );
  });

  it('without TLS settings the server refuses, and the line says it wants TLS', async () => {
    const result = await runCli(['migrate'], bound({ uri }));
    assert.equal(result.code, 1);
    assert.match(oneLine(result), /no encryption; the server wants TLS: require_ssl or sslmode in the binding$/);
  });

  it('without the client certificate the server refuses, in one line', async () => {
    const result = await runCli(['migrate'], bound({ uri, sslmode: 'verify-full', sslrootcert: pem.ca }));
    assert.equal(result.code, 1);
    assert.match(
      oneLine(result),
      /^paasmon: PostgreSQL at 127\.0\.0\.1:\d+ from the bound PostgreSQL service .*certificate/,
    );
  });
});
