// The only reader of the environment and VCAP_SERVICES. Everything is validated once, here,
// so a bad setting stops paasmon at start with a message naming the variable.
import cron from 'node-cron';
import { z } from 'zod';
import { ConfigError } from './errors.js';

/** Every default in one place. Durations are strings as a user would write them. */
export const DEFAULTS = Object.freeze({
  PAASMON_DATA_DIR: '.paasmon',
  CF_SKIP_SSL_VALIDATION: 'false',
  CF_CONCURRENCY: '4',
  CF_TIMEOUT: '30s',
  POLL_SCHEDULE: '*/5 * * * * *',
  SEARCH_INDEX: 'logs-app-*',
  ROUTER_LOG_FORMAT: 'auto',
  INGEST_SCHEDULE: '*/15 * * * * *',
  INGEST_DELAY: '30s',
  CORRELATION_HEADER: 'X-Correlation-Id',
  PORT: '9469',
  LOG_LEVEL: 'info',
  DB_BUFFER_RECORDS: '100000',
  INGEST_LOOKBACK: '1h',
  ROUTER_LOG_FIELDS: '{}',
  DRAIN_BUFFER_RECORDS: '20000',
  LOG_CACHE_SCHEDULE: '*/15 * * * * *',
  LOG_CACHE_LOOKBACK: '5m',
});

/** Keys whose values never appear in a log line or error message. */
export const SECRET_KEYS = Object.freeze([
  'CF_PASSWORD', 'CF_CLIENT_SECRET', 'SEARCH_PASSWORD', 'SEARCH_API_KEY', 'METRICS_BEARER_TOKEN', 'DATABASE_URL',
  'DRAIN_TOKEN', 'DRAIN_TLS_KEY',
]);

const CONTRACT_KEYS = Object.freeze([
  'DATABASE_URL', 'PAASMON_DATA_DIR', 'CF_API', 'CF_USERNAME', 'CF_PASSWORD', 'CF_CLIENT_ID', 'CF_CLIENT_SECRET',
  'CF_APPS', 'CF_SPACE_GUID', 'CF_SKIP_SSL_VALIDATION', 'CF_CONCURRENCY', 'CF_TIMEOUT', 'POLL_SCHEDULE',
  'SEARCH_URL', 'SEARCH_INDEX', 'SEARCH_USERNAME', 'SEARCH_PASSWORD', 'SEARCH_API_KEY', 'ROUTER_LOG_FORMAT',
  'INGEST_SCHEDULE', 'INGEST_DELAY', 'CORRELATION_HEADER', 'PORT', 'METRICS_BEARER_TOKEN', 'LOG_LEVEL',
  'DB_BUFFER_RECORDS', 'INGEST_LOOKBACK', 'ROUTER_LOG_FIELDS',
  'DRAIN_TOKEN', 'DRAIN_TCP_PORT', 'DRAIN_TLS_CERT', 'DRAIN_TLS_KEY', 'DRAIN_BUFFER_RECORDS',
  'LOG_CACHE_URL', 'LOG_CACHE_SCHEDULE', 'LOG_CACHE_LOOKBACK',
]);

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** @param {string} text e.g. "30s", "500ms", "2m" @returns {number | undefined} milliseconds */
export function parseDuration(text) {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_MS[/** @type {keyof typeof DURATION_MS} */ (match[2])];
}

const optionalText = z.string().trim().min(1).optional();
const httpUrl = z.string().trim().refine((value) => {
  try { return ['http:', 'https:'].includes(new URL(value).protocol); } catch { return false; }
}, 'must be an http:// or https:// URL').transform((value) => value.replace(/\/+$/, ''));
const booleanText = z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).transform((v) => v === 'true');
/** @param {number} min @param {number} max */
const integerText = (min, max) => z.string().trim()
  .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
  .transform(Number)
  .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);
const durationText = z.string().refine((v) => parseDuration(v) !== undefined, 'must be a duration such as 500ms, 30s or 2m')
  .transform((v) => /** @type {number} */ (parseDuration(v)));
const cronText = z.string().trim().superRefine((value, ctx) => {
  const result = cron.validateDetailed(value);
  if (!result.valid) {
    const detail = result.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    ctx.addIssue({ code: 'custom', message: `must be a cron expression with seconds, e.g. "*/5 * * * * *" (${detail})` });
  }
});

const schema = z.object({
  DATABASE_URL: z.string().trim().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional(),
  PAASMON_DATA_DIR: z.string().min(1),
  CF_API: httpUrl.optional(),
  CF_USERNAME: optionalText,
  CF_PASSWORD: z.string().min(1).optional(),
  CF_CLIENT_ID: optionalText,
  CF_CLIENT_SECRET: z.string().min(1).optional(),
  CF_APPS: z.string().optional().transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
  CF_SPACE_GUID: z.string().trim().regex(GUID, 'must be a GUID such as 2f35885d-0c9d-4423-83ad-fd05066f8576').optional(),
  CF_SKIP_SSL_VALIDATION: booleanText,
  CF_CONCURRENCY: integerText(1, 64),
  CF_TIMEOUT: durationText,
  POLL_SCHEDULE: cronText,
  SEARCH_URL: httpUrl.optional(),
  SEARCH_INDEX: z.string().min(1),
  SEARCH_USERNAME: optionalText,
  SEARCH_PASSWORD: z.string().min(1).optional(),
  SEARCH_API_KEY: z.string().min(1).optional(),
  ROUTER_LOG_FORMAT: z.enum(['auto', 'logsearch', 'raw'], { error: 'must be one of auto, logsearch, raw' }),
  INGEST_SCHEDULE: cronText,
  INGEST_DELAY: durationText,
  CORRELATION_HEADER: z.string().trim().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name'),
  PORT: integerText(0, 65535),
  METRICS_BEARER_TOKEN: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'must be one of fatal, error, warn, info, debug, trace, silent',
  }),
  DB_BUFFER_RECORDS: integerText(1, 10_000_000),
  INGEST_LOOKBACK: durationText,
  ROUTER_LOG_FIELDS: z.string().transform((text, ctx) => {
    try {
      const value = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) {
        return /** @type {Record<string, string>} */ (value);
      }
    } catch { /* reported below */ }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object of field names, e.g. {"responseTimeMs":"router.response_time_ms"}' });
    return z.NEVER;
  }),
  DRAIN_TOKEN: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
  DRAIN_TCP_PORT: integerText(0, 65535).optional(),
  DRAIN_TLS_CERT: z.string().min(1).optional(),
  DRAIN_TLS_KEY: z.string().min(1).optional(),
  DRAIN_BUFFER_RECORDS: integerText(100, 10_000_000),
  LOG_CACHE_URL: z.union([z.literal('auto'), httpUrl], { error: 'must be an http(s):// URL or "auto" (the link in the Cloud Controller root)' }).optional(),
  LOG_CACHE_SCHEDULE: cronText,
  LOG_CACHE_LOOKBACK: durationText,
});

/**
 * @typedef {object} CloudControllerConfig
 * @property {string | undefined} api
 * @property {string | undefined} username
 * @property {string | undefined} password
 * @property {string | undefined} clientId
 * @property {string | undefined} clientSecret
 * @property {string[]} apps names or GUIDs
 * @property {string | undefined} spaceGuid
 * @property {boolean} skipSslValidation
 * @property {number} concurrency
 * @property {number} timeoutMs
 *
 * @typedef {object} Config
 * @property {string | undefined} databaseUrl
 * @property {'env' | 'vcap' | 'embedded'} databaseSource
 * @property {string} dataDir
 * @property {CloudControllerConfig} cf
 * @property {string} pollSchedule
 * @property {{ url?: string, index: string, username?: string, password?: string, apiKey?: string, format: string, fields: Record<string, string> }} search
 * @property {string} ingestSchedule
 * @property {number} ingestDelayMs
 * @property {number} ingestLookbackMs how far back the first incremental ingest starts
 * @property {string} correlationHeader
 * @property {number} port
 * @property {string | undefined} metricsBearerToken
 * @property {string} logLevel
 * @property {number} dbBufferRecords
 * @property {{ token?: string, tcpPort?: number, tlsCert?: string, tlsKey?: string, bufferRecords: number }} drain
 * @property {{ url?: string, schedule: string, lookbackMs: number }} logCache url 'auto' = from the Cloud Controller root
 * @property {readonly string[]} secrets values to scrub from every log line
 */

/**
 * Reads env and VCAP_SERVICES into one frozen config. Precedence: DEFAULTS < user-provided
 * service `paasmon` < bound PostgreSQL service (DATABASE_URL only) < plain environment.
 * @param {Record<string, string | undefined>} [env]
 * @returns {Config}
 */
export function loadConfig(env = process.env) {
  const services = parseVcapServices(env.VCAP_SERVICES);
  const provided = userProvidedSettings(services);
  const boundDatabaseUrl = postgresBindingUrl(services);

  /** @type {Record<string, string | undefined>} */
  const raw = { ...DEFAULTS, ...provided };
  if (boundDatabaseUrl) raw.DATABASE_URL = boundDatabaseUrl;
  for (const key of CONTRACT_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }

  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue.path[0]);
    const shown = SECRET_KEYS.includes(variable) ? '' : ` (got ${JSON.stringify(raw[variable])})`;
    throw new ConfigError(`${variable} ${issue.message}${shown}`, { variable });
  }
  const v = parsed.data;
  const databaseSource = env.DATABASE_URL ? 'env' : boundDatabaseUrl ? 'vcap' : v.DATABASE_URL ? 'env' : 'embedded';

  /** @type {Config} */
  const config = {
    databaseUrl: v.DATABASE_URL,
    databaseSource,
    dataDir: v.PAASMON_DATA_DIR,
    cf: {
      api: v.CF_API,
      username: v.CF_USERNAME,
      password: v.CF_PASSWORD,
      clientId: v.CF_CLIENT_ID,
      clientSecret: v.CF_CLIENT_SECRET,
      apps: v.CF_APPS,
      spaceGuid: v.CF_SPACE_GUID,
      skipSslValidation: v.CF_SKIP_SSL_VALIDATION,
      concurrency: v.CF_CONCURRENCY,
      timeoutMs: v.CF_TIMEOUT,
    },
    pollSchedule: v.POLL_SCHEDULE,
    search: {
      url: v.SEARCH_URL,
      index: v.SEARCH_INDEX,
      username: v.SEARCH_USERNAME,
      password: v.SEARCH_PASSWORD,
      apiKey: v.SEARCH_API_KEY,
      format: v.ROUTER_LOG_FORMAT,
      fields: v.ROUTER_LOG_FIELDS,
    },
    ingestSchedule: v.INGEST_SCHEDULE,
    ingestDelayMs: v.INGEST_DELAY,
    ingestLookbackMs: v.INGEST_LOOKBACK,
    correlationHeader: v.CORRELATION_HEADER,
    port: v.PORT,
    metricsBearerToken: v.METRICS_BEARER_TOKEN,
    logLevel: v.LOG_LEVEL,
    dbBufferRecords: v.DB_BUFFER_RECORDS,
    drain: {
      token: v.DRAIN_TOKEN, tcpPort: v.DRAIN_TCP_PORT, tlsCert: v.DRAIN_TLS_CERT, tlsKey: v.DRAIN_TLS_KEY, bufferRecords: v.DRAIN_BUFFER_RECORDS,
    },
    logCache: { url: v.LOG_CACHE_URL, schedule: v.LOG_CACHE_SCHEDULE, lookbackMs: v.LOG_CACHE_LOOKBACK },
    secrets: secretValues(raw),
  };
  Object.defineProperty(config, 'secrets', { enumerable: false });
  return deepFreeze(config);
}

/**
 * The Cloud Controller settings `poll` and `collect` cannot run without.
 * @param {Config} config
 */
export function requireCloudController(config) {
  const { cf } = config;
  if (!cf.api) throw new ConfigError('CF_API is required: the Cloud Controller URL, e.g. https://api.sys.example.com', { variable: 'CF_API' });
  const pair = (/** @type {string} */ a, /** @type {unknown} */ av, /** @type {string} */ b, /** @type {unknown} */ bv) => {
    if (av && !bv) throw new ConfigError(`${b} is required when ${a} is set`, { variable: b });
    if (bv && !av) throw new ConfigError(`${a} is required when ${b} is set`, { variable: a });
    return Boolean(av && bv);
  };
  const password = pair('CF_USERNAME', cf.username, 'CF_PASSWORD', cf.password);
  const client = pair('CF_CLIENT_ID', cf.clientId, 'CF_CLIENT_SECRET', cf.clientSecret);
  if (!password && !client) {
    throw new ConfigError('CF_USERNAME + CF_PASSWORD or CF_CLIENT_ID + CF_CLIENT_SECRET are required for UAA', { variable: 'CF_USERNAME' });
  }
  if (password && client) {
    throw new ConfigError('CF_CLIENT_ID must not be set together with CF_USERNAME: choose one UAA grant', { variable: 'CF_CLIENT_ID' });
  }
  if (cf.apps.length === 0 && !cf.spaceGuid) {
    throw new ConfigError('CF_APPS is required (comma list of app names or GUIDs), or CF_SPACE_GUID to watch a whole space', { variable: 'CF_APPS' });
  }
}

/** @param {string | undefined} text @returns {Record<string, Array<Record<string, any>>>} */
function parseVcapServices(text) {
  if (!text || !text.trim()) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`VCAP_SERVICES is not valid JSON: ${/** @type {Error} */ (err).message}`, { variable: 'VCAP_SERVICES', cause: err });
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
 * @returns {Record<string, string>}
 */
function userProvidedSettings(services) {
  const binding = allBindings(services).find((s) => s?.name === 'paasmon');
  if (!binding) return {};
  const credentials = binding.credentials ?? {};
  /** @type {Record<string, string>} */
  const settings = {};
  for (const [key, value] of Object.entries(credentials)) {
    if (!CONTRACT_KEYS.includes(key)) {
      throw new ConfigError(`VCAP_SERVICES: user-provided service "paasmon" has unknown key ${key}; known keys: ${CONTRACT_KEYS.join(', ')}`, { variable: 'VCAP_SERVICES' });
    }
    if (value === null || typeof value === 'object') {
      throw new ConfigError(`VCAP_SERVICES: user-provided service "paasmon" key ${key} must be a string, number or boolean`, { variable: key });
    }
    settings[key] = String(value);
  }
  return settings;
}

const POSTGRES_NAME = /postgres/i;

/**
 * URL of the first bound service tagged or labelled postgres/postgresql.
 * @param {Record<string, Array<Record<string, any>>>} services
 * @returns {string | undefined}
 */
function postgresBindingUrl(services) {
  const binding = allBindings(services).find((s) => s && s.name !== 'paasmon' && (
    POSTGRES_NAME.test(String(s.label ?? '')) || (Array.isArray(s.tags) && s.tags.some((t) => POSTGRES_NAME.test(String(t))))));
  if (!binding) return undefined;
  const c = binding.credentials ?? {};
  const where = `VCAP_SERVICES: PostgreSQL service "${binding.name ?? binding.label}"`;
  const uri = c.uri ?? c.url ?? c.jdbcUrl;
  if (typeof uri === 'string' && /^postgres(ql)?:\/\//.test(uri)) return uri;
  const user = c.user ?? c.username;
  const database = c.name ?? c.database ?? c.db_name ?? c.dbname;
  for (const [field, value] of [['host', c.host ?? c.hostname], ['user', user], ['password', c.password], ['name', database]]) {
    if (value === undefined || value === null || value === '') {
      throw new ConfigError(`${where} has neither credentials.uri nor credentials.${field}`, { variable: 'VCAP_SERVICES' });
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

/** @param {Record<string, string | undefined>} raw */
function secretValues(raw) {
  /** @type {string[]} */
  const values = [];
  for (const key of SECRET_KEYS) {
    const value = raw[key];
    if (!value) continue;
    values.push(value);
    if (key === 'DATABASE_URL') {
      try {
        const password = decodeURIComponent(new URL(value).password);
        if (password) values.push(password);
      } catch { /* not a URL: the whole value is already listed */ }
    }
  }
  return Object.freeze(values.filter((v) => v.length >= 3));
}

/** A copy of the config that is safe to print. @param {Config} config */
export function redact(config) {
  return JSON.parse(scrub(JSON.stringify(config), config.secrets));
}

/**
 * Replaces every secret value in a text by [REDACTED].
 * @param {string} text @param {readonly string[]} secrets
 */
export function scrub(text, secrets) {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    const encoded = JSON.stringify(secret).slice(1, -1);
    if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join('[REDACTED]');
  }
  return out;
}

/** @template T @param {T} value @returns {T} */
function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export { GUID };
