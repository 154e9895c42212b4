// How paasmon connects to PostgreSQL: a URL and TLS settings (sslmode, CA, client certificate) into
// node-postgres' pool config. One reading of sslmode for DATABASE_URL and for a service binding.
import fs from 'node:fs';
import { ConfigError } from '../../core/errors.js';

/** @typedef {import('../../core/types.js').DatabaseTls} DatabaseTls */

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** Query parameters of a URL that are about TLS; node-postgres would let them override `ssl`. */
const TLS_PARAMETERS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat'];

/**
 * The pool's connection settings. sslmode comes from the URL, else from `tls`, else from what `tls`
 * holds (a CA alone: verify-ca; a client certificate alone: require); with none, node-postgres'
 * default (PGSSLMODE, else no TLS). Every mode that encrypts also verifies, except no-verify:
 * - require, prefer, allow: with a CA, its chain (libpq's verify-ca); else chain and host name
 *   against Node's trusted CAs (NODE_EXTRA_CA_CERTS adds one);
 * - verify-ca: the chain only (brokers' certificates often name an instance, not the host or IP);
 * - verify-full: chain and host name.
 * In the URL, sslrootcert, sslcert and sslkey are files (as for libpq); in `tls`, PEM text.
 * @param {string} url
 * @param {DatabaseTls} [tls]
 * @param {(file: string) => string} [readFile]
 * @returns {{ connectionString: string, ssl?: false | import('node:tls').ConnectionOptions }}
 */
export function connectionConfig(url, tls = {}, readFile = (file) => fs.readFileSync(file, 'utf8')) {
  const { connectionString, given } = withoutTlsParameters(url);
  const ca = tls.ca ?? (given.sslrootcert ? readFile(given.sslrootcert) : undefined);
  const cert = tls.cert ?? (given.sslcert ? readFile(given.sslcert) : undefined);
  const key = tls.key ?? (given.sslkey ? readFile(given.sslkey) : undefined);
  const sslmode =
    given.sslmode ?? sslParameter(given.ssl) ?? tls.sslmode ?? (ca ? 'verify-ca' : cert ? 'require' : undefined);
  if (sslmode === undefined) return { connectionString };
  if (!SSL_MODES.includes(sslmode))
    throw new ConfigError(`sslmode ${JSON.stringify(sslmode)} is not one of ${SSL_MODES.join(', ')}`, {
      variable: 'DATABASE_URL',
    });
  if (Boolean(cert) !== Boolean(key))
    throw new ConfigError(`${cert ? 'sslkey' : 'sslcert'} is required with ${cert ? 'sslcert' : 'sslkey'}`, {
      variable: 'DATABASE_URL',
    });
  if (sslmode === 'disable') return { connectionString, ssl: false };
  /** @type {import('node:tls').ConnectionOptions} */
  const ssl = {};
  if (ca) ssl.ca = ca;
  if (cert && key) Object.assign(ssl, { cert, key });
  const chainOnly = sslmode === 'verify-ca' || (ca !== undefined && ['require', 'prefer', 'allow'].includes(sslmode));
  if (sslmode === 'no-verify') ssl.rejectUnauthorized = false;
  else if (chainOnly) ssl.checkServerIdentity = () => undefined;
  return { connectionString, ssl };
}

/**
 * The URL without its TLS parameters, and their values; a URL without any (or one WHATWG cannot read, such as a
 * socket directory's) is left as it is for node-postgres.
 * @param {string} url @returns {{ connectionString: string, given: Record<string, string | undefined> }}
 */
function withoutTlsParameters(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, given: {} };
  }
  const params = parsed.searchParams;
  if (!TLS_PARAMETERS.some((name) => params.has(name))) return { connectionString: url, given: {} };
  const given = Object.fromEntries(TLS_PARAMETERS.map((name) => [name, params.get(name) ?? undefined]));
  for (const name of TLS_PARAMETERS) params.delete(name);
  return { connectionString: parsed.toString(), given };
}

/** `ssl=true` / `ssl=1` (node-postgres' own parameter) as a mode. @param {string | undefined} value */
function sslParameter(value) {
  if (value === undefined) return undefined;
  return value === 'true' || value === '1' ? 'require' : 'disable';
}
