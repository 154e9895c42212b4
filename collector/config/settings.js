// Every setting paasmon reads, once: its validation, its default and whether it is a secret.
// DEFAULTS, SECRET_KEYS and SETTING_KEYS are derived from this table, never listed again.
import { createRequire } from 'node:module';
import * as v from 'valibot';
import { parseDuration } from '../../core/durations.js';
import { GUID } from '../../core/ids.js';

const require = createRequire(import.meta.url);

// What the config said of an empty text when it was validated by zod: kept word for word.
const EMPTY_TEXT = 'Too small: expected string to have >=1 characters';

const optionalText = v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, EMPTY_TEXT)));
const secretText = v.optional(v.pipe(v.string(), v.minLength(1, EMPTY_TEXT)));
/** @param {string} value */
const isHttpUrl = (value) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
/** @param {string} value */
const withoutTrailingSlashes = (value) => value.replace(/\/+$/, '');
const httpUrl = v.pipe(
  v.string(),
  v.trim(),
  v.check(isHttpUrl, 'must be an http:// or https:// URL'),
  v.transform(withoutTrailingSlashes),
);
const booleanText = v.pipe(
  v.picklist(['true', 'false'], 'must be "true" or "false"'),
  v.transform((text) => text === 'true'),
);
/** @param {number} min @param {number} max */
const integerText = (min, max) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^\d+$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.check((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`),
  );
const ratioText = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^(0|1|0?\.\d+|1\.0*)$/, 'must be a ratio from 0 to 1, e.g. 0.01'),
  v.transform(Number),
);
const durationText = v.pipe(
  v.string(),
  v.check((text) => parseDuration(text) !== undefined, 'must be a duration such as 500ms, 30s or 2m'),
  v.transform((text) => /** @type {number} */ (parseDuration(text))),
);

/** The cron settings' defaults (filled from the table below), valid as written. */
const DEFAULT_SCHEDULES = new Set();

/**
 * node-cron's verdict on a cron text. Required on first use, not imported: a command whose
 * schedules are the defaults (every one-shot command, as a rule) never loads the scheduler.
 * @param {string} text @returns {{ valid: boolean, errors: Array<{ field: string, message: string }> }}
 */
export function cronVerdict(text) {
  if (DEFAULT_SCHEDULES.has(text)) return { valid: true, errors: [] };
  return require('node-cron').validateDetailed(text);
}

const cronText = v.pipe(
  v.string(),
  v.trim(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const result = cronVerdict(dataset.value);
    if (result.valid) return;
    const detail = result.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    addIssue({ message: `must be a cron expression with seconds, e.g. "*/5 * * * * *" (${detail})` });
  }),
);
// '' when absent: an object runs a missing key's schema only when it has a default.
const commaList = v.pipe(
  v.optional(v.string(), ''),
  v.transform((text) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
);
const fieldMap = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    try {
      const value = JSON.parse(dataset.value);
      const isObject = value && typeof value === 'object' && !Array.isArray(value);
      if (isObject && Object.values(value).every((field) => typeof field === 'string')) {
        return /** @type {Record<string, string>} */ (value);
      }
    } catch {
      /* reported below */
    }
    addIssue({
      message: 'must be a JSON object of field names, e.g. {"responseTimeMs":"router.response_time_ms"}',
    });
    return NEVER;
  }),
);
const DAY_MS = 86_400_000;
/** A setting's list of allowed values, as the configuration reference shows it. @param {string[]} values */
const oneOf = (values) => v.picklist(values, `must be one of ${values.join(', ')}`);

/**
 * @typedef {object} Setting
 * @property {v.GenericSchema<any, any>} schema validates the text and turns it into the config value
 * @property {string} [default] as a user would write it
 * @property {boolean} [secret] never shown in logs, errors or printed config
 */

/** @type {Record<string, Setting>} */
export const SETTINGS = {
  DATABASE_URL: {
    schema: v.optional(
      v.pipe(v.string(), v.trim(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')),
    ),
    secret: true,
  },
  PAASMON_DATA_DIR: { schema: optionalText },
  PAASMON_JDBC_JAR: { schema: optionalText },
  CF_API: { schema: v.optional(httpUrl) },
  CF_USERNAME: { schema: optionalText },
  CF_PASSWORD: { schema: secretText, secret: true },
  CF_CLIENT_ID: { schema: optionalText },
  CF_CLIENT_SECRET: { schema: secretText, secret: true },
  CF_APPS: { schema: commaList },
  CF_SPACE_GUID: {
    schema: v.optional(
      v.pipe(v.string(), v.trim(), v.regex(GUID, 'must be a GUID such as 2f35885d-0c9d-4423-83ad-fd05066f8576')),
    ),
  },
  CF_SKIP_SSL_VALIDATION: { schema: booleanText, default: 'false' },
  CF_CONCURRENCY: { schema: integerText(1, 64), default: '4' },
  CF_TIMEOUT: { schema: durationText, default: '30s' },
  POLL_SCHEDULE: { schema: cronText, default: '*/5 * * * * *' },
  SEARCH_URL: { schema: v.optional(httpUrl) },
  SEARCH_INDEX: { schema: v.pipe(v.string(), v.minLength(1, EMPTY_TEXT)), default: 'logs-app-*' },
  SEARCH_USERNAME: { schema: optionalText },
  SEARCH_PASSWORD: { schema: secretText, secret: true },
  SEARCH_API_KEY: { schema: secretText, secret: true },
  ROUTER_LOG_FORMAT: {
    schema: oneOf(['auto', 'logsearch', 'raw']),
    default: 'auto',
  },
  ROUTER_LOG_FIELDS: { schema: fieldMap, default: '{}' },
  ROUTER_LOG_FILE: { schema: optionalText },
  ROUTER_LOG_FILE_APP: { schema: optionalText },
  INGEST_SCHEDULE: { schema: cronText, default: '*/15 * * * * *' },
  INGEST_DELAY: { schema: durationText, default: '30s' },
  INGEST_LOOKBACK: { schema: durationText, default: '1h' },
  INGEST_MAX_SKIPPED_RATIO: { schema: ratioText, default: '0.01' },
  CORRELATION_HEADER: {
    schema: v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')),
    default: 'X-Correlation-Id',
  },
  PORT: { schema: integerText(0, 65535), default: '9469' },
  METRICS_BEARER_TOKEN: { schema: secretText, secret: true },
  METRICS_PUBLIC: { schema: booleanText, default: 'false' },
  METRICS_RUN_SERIES_TTL: { schema: durationText, default: '5m' },
  LOG_LEVEL: {
    schema: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
  },
  DB_BUFFER_RECORDS: { schema: integerText(1, 10_000_000), default: '100000' },
  RETENTION: {
    schema: v.optional(
      v.pipe(
        v.string(),
        v.trim(),
        v.check((text) => (parseDuration(text) ?? 0) >= DAY_MS, 'must be a duration of at least a day, e.g. 180d'),
        v.transform((text) => /** @type {number} */ (parseDuration(text))),
      ),
    ),
  },
  DRAIN_TOKEN: {
    schema: v.optional(
      v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)')),
    ),
    secret: true,
  },
  DRAIN_TCP_PORT: { schema: v.optional(integerText(0, 65535)) },
  DRAIN_TLS_CERT: { schema: optionalText },
  DRAIN_TLS_KEY: { schema: secretText, secret: true },
  DRAIN_BUFFER_RECORDS: { schema: integerText(100, 10_000_000), default: '20000' },
  LOG_CACHE_URL: {
    // "auto" as written, or a URL as httpUrl takes it (trimmed, without trailing slashes).
    schema: v.optional(
      v.pipe(
        v.string(),
        v.check(
          (text) => text === 'auto' || isHttpUrl(text.trim()),
          'must be an http(s):// URL or "auto" (the log_cache link of the Cloud Controller root)',
        ),
        v.transform((text) => (text === 'auto' ? text : withoutTrailingSlashes(text.trim()))),
      ),
    ),
  },
  LOG_CACHE_SCHEDULE: { schema: cronText, default: '*/15 * * * * *' },
  LOG_CACHE_LOOKBACK: { schema: durationText, default: '5m' },
  // Set by `cf run-task` / the worker's environment for the load generator.
  RUN_ID: { schema: v.optional(integerText(1, Number.MAX_SAFE_INTEGER)) },
  CF_INSTANCE_INDEX: { schema: v.optional(integerText(0, 1_000_000)) },
};

export const SETTING_KEYS = Object.freeze(Object.keys(SETTINGS));

for (const setting of Object.values(SETTINGS))
  if (setting.schema === cronText && setting.default) DEFAULT_SCHEDULES.add(setting.default);

/** Every default in one place. Durations are strings as a user would write them. */
export const DEFAULTS = Object.freeze(
  Object.fromEntries(
    Object.entries(SETTINGS).flatMap(([key, s]) => (s.default === undefined ? [] : [[key, s.default]])),
  ),
);

/** Keys whose values never appear in a log line or error message. */
export const SECRET_KEYS = Object.freeze(SETTING_KEYS.filter((key) => SETTINGS[key].secret));

export const schema = v.object(Object.fromEntries(Object.entries(SETTINGS).map(([key, s]) => [key, s.schema])));
