// A bound PostgreSQL service's TLS settings (require_ssl, sslmode, PEM sslrootcert/sslcert/sslkey in the
// credentials, sslmode in the uri) become node-postgres' `ssl`, and DATABASE_URL's sslmode means the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, redact } from '../../collector/config/index.js';
import { ConfigError } from '../../core/errors.js';
import { connectionConfig } from '../../exporters/postgres/connection.js';
import { unreachable } from '../../exporters/postgres/database.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIEclientkey\n-----END RSA PRIVATE KEY-----\n';
const URI = 'postgresql://u:p@10.1.2.3:5432/service_db';

/** @param {Record<string, unknown>} credentials @param {Record<string, string>} [env] */
function bound(credentials, env = {}) {
  const VCAP_SERVICES = JSON.stringify({
    'csb-google-postgres': [{ name: 'db', label: 'csb-google-postgres', tags: ['postgresql'], credentials }],
  });
  const config = loadConfig({ VCAP_SERVICES, ...env });
  return { config, pool: connectionConfig(/** @type {string} */ (config.databaseUrl), config.databaseTls) };
}

/** @param {unknown} ssl */
const options = (ssl) => /** @type {import('node:tls').ConnectionOptions} */ (ssl);

describe('PostgreSQL TLS from a service binding', () => {
  it('uses a binding without TLS settings as it is (node-postgres decides, as before)', () => {
    const { config, pool } = bound({ uri: URI });
    assert.deepEqual(config.databaseTls, {});
    assert.deepEqual(pool, { connectionString: URI });
  });

  it('require_ssl with a CA and a client certificate (CSB GCP): TLS, chain checked against that CA, no host name', () => {
    const { config, pool } = bound({ uri: URI, require_ssl: true, sslrootcert: CA, sslcert: CERT, sslkey: KEY });
    assert.deepEqual(config.databaseTls, { sslmode: 'require', ca: CA, cert: CERT, key: KEY });
    const ssl = options(pool.ssl);
    assert.equal(ssl.ca, CA);
    assert.equal(ssl.cert, CERT);
    assert.equal(ssl.key, KEY);
    assert.notEqual(ssl.rejectUnauthorized, false, 'the chain is checked');
    assert.equal(typeof ssl.checkServerIdentity, 'function', 'the certificate need not name 10.1.2.3');
    assert.equal(ssl.checkServerIdentity?.('10.1.2.3', /** @type {any} */ ({ subject: { CN: 'p:r:i' } })), undefined);
    assert.ok(config.secrets.includes(KEY), 'the private key is scrubbed from output like a password');
    assert.ok(!JSON.stringify(redact(config)).includes('MIIEclientkey'), 'nor in the printed configuration');
  });

  it("require_ssl alone (CSB AWS): TLS with chain and host name checked against Node's CAs", () => {
    for (const flag of [true, 'true']) {
      const { pool } = bound({ uri: URI, require_ssl: flag });
      assert.deepEqual(pool, { connectionString: URI, ssl: {} }, String(flag));
    }
    assert.deepEqual(bound({ uri: URI, require_ssl: false }).pool, { connectionString: URI });
  });

  it('sslmode in the credentials: verify-full checks the host name, no-verify checks nothing, disable is plain', () => {
    const full = options(bound({ uri: URI, sslmode: 'verify-full', sslrootcert: CA }).pool.ssl);
    assert.deepEqual(Object.keys(full), ['ca']);
    const none = options(bound({ uri: URI, sslmode: 'no-verify' }).pool.ssl);
    assert.equal(none.rejectUnauthorized, false);
    assert.equal(bound({ uri: URI, sslmode: 'disable', require_ssl: true }).pool.ssl, false);
  });

  it('a CA alone means verify-ca; a client certificate alone means require', () => {
    const ca = options(bound({ uri: URI, sslrootcert: CA }).pool.ssl);
    assert.equal(ca.ca, CA);
    assert.equal(typeof ca.checkServerIdentity, 'function');
    const client = options(bound({ uri: URI, sslcert: CERT, sslkey: KEY }).pool.ssl);
    assert.deepEqual(client, { cert: CERT, key: KEY });
  });

  it("the uri's sslmode wins over the credentials' and leaves the connection string", () => {
    const { pool } = bound({ uri: `${URI}?sslmode=verify-full&application_name=paasmon`, require_ssl: true });
    assert.deepEqual(pool, { connectionString: `${URI}?application_name=paasmon`, ssl: {} });
    assert.equal(bound({ uri: `${URI}?sslmode=disable`, sslrootcert: CA }).pool.ssl, false);
  });

  it('DATABASE_URL in the environment wins over the binding, and its TLS settings with it', () => {
    const { config, pool } = bound({ uri: URI, require_ssl: true }, { DATABASE_URL: 'postgres://a:b@elsewhere/x' });
    assert.equal(config.databaseSource, 'env');
    assert.deepEqual(config.databaseTls, {});
    assert.deepEqual(pool, { connectionString: 'postgres://a:b@elsewhere/x' });
  });

  it('says in one line which credential is not PEM text', () => {
    assert.throws(
      () => bound({ uri: URI, sslrootcert: '/etc/ssl/ca.pem' }),
      (err) =>
        err instanceof ConfigError &&
        /^VCAP_SERVICES: PostgreSQL service "db" credentials\.sslrootcert must be PEM text/.test(err.message),
    );
    assert.throws(() => bound({ uri: URI, sslkey: CERT, sslcert: CERT }), /credentials\.sslkey must be PEM text/);
  });
});

describe('connectionConfig', () => {
  const files = /** @type {Record<string, string>} */ ({ '/ca.pem': CA, '/c.pem': CERT, '/k.pem': KEY });
  const read = (/** @type {string} */ file) => files[file];

  it("reads DATABASE_URL's sslrootcert, sslcert and sslkey as files, as libpq does", () => {
    const url = 'postgres://u:p@db.example:5432/d?sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/k.pem';
    assert.deepEqual(connectionConfig(url, {}, read), {
      connectionString: 'postgres://u:p@db.example:5432/d',
      ssl: { ca: CA, cert: CERT, key: KEY },
    });
    const ssl = options(connectionConfig('postgres://u:p@h/d?sslmode=require&sslrootcert=/ca.pem', {}, read).ssl);
    assert.equal(typeof ssl.checkServerIdentity, 'function', 'require with a CA is verify-ca');
    assert.deepEqual(connectionConfig('postgres://u:p@h/d?ssl=true', {}, read), {
      connectionString: 'postgres://u:p@h/d',
      ssl: {},
    });
  });

  it('refuses an unknown sslmode and a client certificate without its key', () => {
    assert.throws(() => connectionConfig('postgres://u:p@h/d?sslmode=required'), /sslmode "required" is not one of/);
    assert.throws(() => connectionConfig('postgres://u:p@h/d', { cert: CERT }), /sslkey is required with sslcert/);
  });
});

describe('unreachable: TLS failures in one line', () => {
  const settings = /** @type {const} */ ({
    databaseUrl: 'postgres://u:p@10.1.2.3:5432/d',
    databaseSource: 'vcap',
    dataDir: '/tmp/x',
  });
  /** @param {string} message @param {string} code */
  const error = (message, code) => Object.assign(new Error(message), { code });

  it('names the CA setting for an untrusted certificate, and verify-ca for a host name mismatch', () => {
    const untrusted = unreachable(
      error('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN'),
      settings,
    );
    assert.equal(
      /** @type {Error} */ (untrusted).message,
      'PostgreSQL at 10.1.2.3:5432 from the bound PostgreSQL service (VCAP_SERVICES): its TLS certificate is not ' +
        'trusted (SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain); give the CA that ' +
        'signed it as credentials.sslrootcert of the binding',
    );
    const env = unreachable(error('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'), {
      ...settings,
      databaseSource: 'env',
    });
    assert.match(/** @type {Error} */ (env).message, /from DATABASE_URL: .* sslrootcert=FILE in DATABASE_URL/);
    const altname = unreachable(
      error("Hostname/IP does not match certificate's altnames", 'ERR_TLS_CERT_ALTNAME_INVALID'),
      settings,
    );
    assert.match(/** @type {Error} */ (altname).message, /does not name this host .*sslmode=verify-ca/);
  });

  it('says when the server wants TLS and when it has none', () => {
    const wants = unreachable(
      error('no pg_hba.conf entry for host "10.0.0.9", user "u", database "d", no encryption', '28000'),
      settings,
    );
    assert.match(/** @type {Error} */ (wants).message, /no encryption; the server wants TLS: require_ssl or sslmode/);
    const none = unreachable(new Error('The server does not support SSL connections'), settings);
    assert.match(/** @type {Error} */ (none).message, /does not take TLS .*sslmode=disable/);
    assert.ok(!/\n/.test(/** @type {Error} */ (wants).message + /** @type {Error} */ (none).message));
  });
});
