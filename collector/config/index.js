// The only reader of the environment and VCAP_SERVICES. Everything is validated once, here,
// so a bad setting stops paasmon at start with a message naming the variable.
import { safeParse } from 'valibot';
import { ConfigError } from '../../core/errors.js';
import { scrub } from '../../core/secrets.js';
import { defaultDataDir } from './data-dir.js';
import { DEFAULTS, SECRET_KEYS, SETTING_KEYS, schema } from './settings.js';
import { parseVcapServices, postgresBinding, userProvidedSettings } from './vcap.js';

export { DEFAULTS, SECRET_KEYS } from './settings.js';

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
 * @typedef {object} SearchConfig
 * @property {string} [url]
 * @property {string} index
 * @property {string} [username]
 * @property {string} [password]
 * @property {string} [apiKey]
 * @property {string} format
 * @property {Record<string, string>} fields
 *
 * @typedef {object} Config
 * @property {string | undefined} databaseUrl
 * @property {import('../../core/types.js').DatabaseTls} databaseTls TLS settings (sslmode, PEM
 *   text) from the bound PostgreSQL service's credentials; empty when DATABASE_URL is not the binding's
 * @property {'env' | 'vcap' | 'embedded'} databaseSource
 * @property {string} dataDir
 * @property {string | undefined} jdbcJar the PostgreSQL JDBC driver of the demo's Java sample app
 * @property {CloudControllerConfig} cf
 * @property {string} pollSchedule
 * @property {SearchConfig} search
 * @property {{ path?: string, appName?: string }} routerLogFile a gorouter log file `collect` follows as it grows
 * @property {string} ingestSchedule
 * @property {number} ingestDelayMs
 * @property {number} ingestLookbackMs how far back the first incremental ingest starts
 * @property {number} ingestMaxSkippedRatio skipped / read above which an ingest fails (collect: degraded)
 * @property {string} correlationHeader
 * @property {number} port
 * @property {string | undefined} metricsBearerToken
 * @property {boolean} metricsPublic METRICS_PUBLIC: /metrics open without a token on Cloud Foundry
 * @property {number} metricsRunSeriesTtlMs how long a run's series stay on /metrics after its load ended
 * @property {boolean} onCloudFoundry VCAP_APPLICATION is set: this process runs on the platform
 * @property {string} logLevel
 * @property {number} dbBufferRecords
 * @property {number | undefined} retentionMs RETENTION: raw rows older than this are pruned
 * @property {number | undefined} assignedPort PORT when the platform or the user set it (not the default)
 * @property {number | undefined} runId RUN_ID: the run a load generator records into
 * @property {number | undefined} instanceIndex CF_INSTANCE_INDEX: which instance of a load-generator app this is
 * @property {{ token?: string, tcpPort?: number, tlsCert?: string, tlsKey?: string, bufferRecords: number }} drain
 * @property {{ url?: string, schedule: string, lookbackMs: number }} logCache url 'auto': from the CC root
 * @property {string[]} appRoutes VCAP_APPLICATION's application_uris: the routes of the app paasmon runs in
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
  const provided = userProvidedSettings(services, SETTING_KEYS);
  const bound = postgresBinding(services);

  /** @type {Record<string, string | undefined>} */
  const raw = { ...DEFAULTS, ...provided };
  if (bound) raw.DATABASE_URL = bound.url;
  for (const key of SETTING_KEYS) if (env[key]) raw[key] = env[key]; // an empty variable counts as unset

  const v = parseSettings(raw);
  const databaseSource = env.DATABASE_URL ? 'env' : bound ? 'vcap' : v.DATABASE_URL ? 'env' : 'embedded';

  /** @type {Config} */
  const config = {
    databaseUrl: v.DATABASE_URL,
    databaseTls: (databaseSource === 'vcap' && bound?.tls) || {},
    databaseSource,
    dataDir: v.PAASMON_DATA_DIR ?? defaultDataDir(env),
    jdbcJar: v.PAASMON_JDBC_JAR,
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
    routerLogFile: { path: v.ROUTER_LOG_FILE, appName: v.ROUTER_LOG_FILE_APP },
    ingestSchedule: v.INGEST_SCHEDULE,
    ingestDelayMs: v.INGEST_DELAY,
    ingestLookbackMs: v.INGEST_LOOKBACK,
    ingestMaxSkippedRatio: v.INGEST_MAX_SKIPPED_RATIO,
    correlationHeader: v.CORRELATION_HEADER,
    port: v.PORT,
    metricsBearerToken: v.METRICS_BEARER_TOKEN,
    metricsPublic: v.METRICS_PUBLIC,
    metricsRunSeriesTtlMs: v.METRICS_RUN_SERIES_TTL,
    onCloudFoundry: Boolean(env.VCAP_APPLICATION),
    logLevel: v.LOG_LEVEL,
    dbBufferRecords: v.DB_BUFFER_RECORDS,
    retentionMs: v.RETENTION,
    assignedPort: env.PORT || provided.PORT ? v.PORT : undefined,
    runId: v.RUN_ID,
    instanceIndex: v.CF_INSTANCE_INDEX,
    drain: {
      token: v.DRAIN_TOKEN,
      tcpPort: v.DRAIN_TCP_PORT,
      tlsCert: v.DRAIN_TLS_CERT,
      tlsKey: v.DRAIN_TLS_KEY,
      bufferRecords: v.DRAIN_BUFFER_RECORDS,
    },
    logCache: { url: v.LOG_CACHE_URL, schedule: v.LOG_CACHE_SCHEDULE, lookbackMs: v.LOG_CACHE_LOOKBACK },
    appRoutes: applicationRoutes(env.VCAP_APPLICATION),
    secrets: [...secretValues(raw), ...(bound?.tls.key ? [bound.tls.key] : [])],
  };
  Object.defineProperty(config, 'secrets', { enumerable: false });
  return deepFreeze(config);
}

/**
 * The settings validated and converted; the first wrong one (in the table's order) is a ConfigError naming it.
 * @param {Record<string, string | undefined>} raw
 */
function parseSettings(raw) {
  const parsed = safeParse(schema, raw, { abortEarly: true });
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const variable = String(issue.path?.[0].key);
  const shown = SECRET_KEYS.includes(variable) ? '' : ` (got ${JSON.stringify(raw[variable])})`;
  throw new ConfigError(`${variable} ${issue.message}${shown}`, { variable });
}

/**
 * The Cloud Controller settings `poll` and `collect` cannot run without; `apps: false` for a
 * caller that names no apps to watch (ingest looking app names up).
 * @param {Config} config @param {{ apps?: boolean }} [options]
 */
export function requireCloudController(config, options = {}) {
  const { cf } = config;
  if (!cf.api)
    throw new ConfigError('CF_API is required: the Cloud Controller URL, e.g. https://api.sys.example.com', {
      variable: 'CF_API',
    });
  const pair = (
    /** @type {string} */ a,
    /** @type {unknown} */ av,
    /** @type {string} */ b,
    /** @type {unknown} */ bv,
  ) => {
    if (av && !bv) throw new ConfigError(`${b} is required when ${a} is set`, { variable: b });
    if (bv && !av) throw new ConfigError(`${a} is required when ${b} is set`, { variable: a });
    return Boolean(av && bv);
  };
  const password = pair('CF_USERNAME', cf.username, 'CF_PASSWORD', cf.password);
  const client = pair('CF_CLIENT_ID', cf.clientId, 'CF_CLIENT_SECRET', cf.clientSecret);
  if (!password && !client) {
    throw new ConfigError('CF_USERNAME + CF_PASSWORD or CF_CLIENT_ID + CF_CLIENT_SECRET are required for UAA', {
      variable: 'CF_USERNAME',
    });
  }
  if (password && client) {
    throw new ConfigError('CF_CLIENT_ID must not be set together with CF_USERNAME: choose one UAA grant', {
      variable: 'CF_CLIENT_ID',
    });
  }
  if (options.apps !== false && cf.apps.length === 0 && !cf.spaceGuid) {
    throw new ConfigError(
      'CF_APPS is required (comma list of app names or GUIDs), or CF_SPACE_GUID to watch a whole space',
      { variable: 'CF_APPS' },
    );
  }
}

/**
 * The app's routes from VCAP_APPLICATION (set by Cloud Foundry); none when absent or unreadable.
 * @param {string | undefined} text
 */
function applicationRoutes(text) {
  try {
    const uris = text ? JSON.parse(text).application_uris : undefined;
    return Array.isArray(uris) ? uris.filter((u) => typeof u === 'string') : [];
  } catch {
    return [];
  }
}

/** @param {Record<string, string | undefined>} raw */
export function secretValues(raw) {
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
      } catch {
        /* not a URL: the whole value is already listed */
      }
    }
  }
  return Object.freeze(values.filter((v) => v.length >= 3));
}

/** A copy of the config that is safe to print. @param {Config} config */
export function redact(config) {
  return JSON.parse(scrub(JSON.stringify(config), config.secrets));
}

/** @template T @param {T} value @returns {T} */
function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
