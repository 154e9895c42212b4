// VCAP_SERVICES on Cloud Foundry: a bound PostgreSQL service, and settings from the user-provided
// service named `paasmon` (`cf cups paasmon -p '{...}'`).
import { ConfigError } from '../../core/errors.js';

/** @param {string | undefined} text @returns {Record<string, Array<Record<string, any>>>} */
export function parseVcapServices(text) {
  if (!text || !text.trim()) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`VCAP_SERVICES is not valid JSON: ${/** @type {Error} */ (err).message}`, {
      variable: 'VCAP_SERVICES',
      cause: err,
    });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError('VCAP_SERVICES must be a JSON object of service lists', { variable: 'VCAP_SERVICES' });
  }
  return value;
}

/** @param {Record<string, Array<Record<string, any>>>} services */
function allBindings(services) {
  return Object.values(services).flatMap((list) => (Array.isArray(list) ? list : []));
}

/**
 * Keys from the user-provided service named `paasmon` (`cf cups paasmon -p '{...}'`).
 * @param {Record<string, Array<Record<string, any>>>} services
 * @param {readonly string[]} knownKeys
 * @returns {Record<string, string>}
 */
export function userProvidedSettings(services, knownKeys) {
  const binding = allBindings(services).find((s) => s?.name === 'paasmon');
  if (!binding) return {};
  const credentials = binding.credentials ?? {};
  /** @type {Record<string, string>} */
  const settings = {};
  for (const [key, value] of Object.entries(credentials)) {
    if (!knownKeys.includes(key)) {
      throw new ConfigError(
        `VCAP_SERVICES: user-provided service "paasmon" has unknown key ${key}; known keys: ${knownKeys.join(', ')}`,
        { variable: 'VCAP_SERVICES' },
      );
    }
    if (value === null || typeof value === 'object') {
      throw new ConfigError(
        `VCAP_SERVICES: user-provided service "paasmon" key ${key} must be a string, number or boolean`,
        { variable: key },
      );
    }
    settings[key] = String(value);
  }
  return settings;
}

const POSTGRES_NAME = /postgres/i;

/**
 * The first bound service tagged or labelled postgres/postgresql: its URL, and the TLS settings of its
 * credentials (`sslmode`, `require_ssl`, and PEM text in `sslrootcert`, `sslcert`, `sslkey`, as the
 * Cloud Service Brokers and user-provided services give them).
 * @param {Record<string, Array<Record<string, any>>>} services
 * @returns {{ url: string, tls: import('../../core/types.js').DatabaseTls } | undefined}
 */
export function postgresBinding(services) {
  const binding = allBindings(services).find(
    (s) =>
      s &&
      s.name !== 'paasmon' &&
      (POSTGRES_NAME.test(String(s.label ?? '')) ||
        (Array.isArray(s.tags) && s.tags.some((t) => POSTGRES_NAME.test(String(t))))),
  );
  if (!binding) return undefined;
  const c = binding.credentials ?? {};
  const where = `VCAP_SERVICES: PostgreSQL service "${binding.name ?? binding.label}"`;
  return { url: bindingUrl(c, where), tls: bindingTls(c, where) };
}

/** @param {Record<string, any>} c credentials @param {string} where */
function bindingUrl(c, where) {
  const uri = c.uri ?? c.url ?? c.jdbcUrl;
  if (typeof uri === 'string' && /^postgres(ql)?:\/\//.test(uri)) return uri;
  const user = c.user ?? c.username;
  const database = c.name ?? c.database ?? c.db_name ?? c.dbname;
  for (const [field, value] of [
    ['host', c.host ?? c.hostname],
    ['user', user],
    ['password', c.password],
    ['name', database],
  ]) {
    if (value === undefined || value === null || value === '') {
      throw new ConfigError(`${where} has neither credentials.uri nor credentials.${field}`, {
        variable: 'VCAP_SERVICES',
      });
    }
  }
  const url = new URL('postgres://localhost');
  url.hostname = String(c.host ?? c.hostname);
  url.port = String(c.port ?? 5432);
  url.username = encodeURIComponent(String(user));
  url.password = encodeURIComponent(String(c.password));
  url.pathname = `/${encodeURIComponent(String(database))}`;
  return url.toString();
}

/** What a PEM field of the credentials must hold. */
const PEM_FIELDS = /** @type {const} */ ([
  ['sslrootcert', 'ca', /-----BEGIN CERTIFICATE-----/],
  ['sslcert', 'cert', /-----BEGIN CERTIFICATE-----/],
  ['sslkey', 'key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
]);

/**
 * @param {Record<string, any>} c credentials @param {string} where
 * @returns {import('../../core/types.js').DatabaseTls}
 */
function bindingTls(c, where) {
  /** @type {import('../../core/types.js').DatabaseTls} */
  const tls = {};
  if (c.sslmode !== undefined && c.sslmode !== null && c.sslmode !== '') tls.sslmode = String(c.sslmode);
  else if (c.require_ssl === true || c.require_ssl === 'true') tls.sslmode = 'require';
  for (const [field, key, pem] of PEM_FIELDS) {
    const value = c[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || !pem.test(value)) {
      throw new ConfigError(`${where} credentials.${field} must be PEM text (${pem.source})`, {
        variable: 'VCAP_SERVICES',
      });
    }
    tls[key] = value;
  }
  return tls;
}
