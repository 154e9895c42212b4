// Every setting paasmon reads, once: its validation, its default and whether it is a secret.
// DEFAULTS, SECRET_KEYS and SETTING_KEYS are derived from this table, never listed again.
import cron from 'node-cron';
import { z } from 'zod';
import { parseDuration } from '../../core/durations.js';
import { GUID } from '../../core/ids.js';

const optionalText = z.string().trim().min(1).optional();
const secretText = z.string().min(1).optional();
const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''));
const booleanText = z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).transform((v) => v === 'true');
/** @param {number} min @param {number} max */
const integerText = (min, max) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);
const ratioText = z
  .string()
  .trim()
  .regex(/^(0|1|0?\.\d+|1\.0*)$/, 'must be a ratio from 0 to 1, e.g. 0.01')
  .transform(Number);
const durationText = z
  .string()
  .refine((v) => parseDuration(v) !== undefined, 'must be a duration such as 500ms, 30s or 2m')
  .transform((v) => /** @type {number} */ (parseDuration(v)));
const cronText = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const result = cron.validateDetailed(value);
    if (!result.valid) {
      const detail = result.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      ctx.addIssue({
        code: 'custom',
        message: `must be a cron expression with seconds, e.g. "*/5 * * * * *" (${detail})`,
      });
    }
  });
const commaList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const fieldMap = z.string().transform((text, ctx) => {
  try {
    const value = JSON.parse(text);
    const isObject = value && typeof value === 'object' && !Array.isArray(value);
    if (isObject && Object.values(value).every((v) => typeof v === 'string')) {
      return /** @type {Record<string, string>} */ (value);
    }
  } catch {
    /* reported below */
  }
  ctx.addIssue({
    code: 'custom',
    message: 'must be a JSON object of field names, e.g. {"responseTimeMs":"router.response_time_ms"}',
  });
  return z.NEVER;
});

/**
 * @typedef {object} Setting
 * @property {z.ZodType} schema validates the text and turns it into the config value
 * @property {string} [default] as a user would write it
 * @property {boolean} [secret] never shown in logs, errors or printed config
 */

/** @type {Record<string, Setting>} */
export const SETTINGS = {
  DATABASE_URL: {
    schema: z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    secret: true,
  },
  PAASMON_DATA_DIR: { schema: optionalText },
  PAASMON_JDBC_JAR: { schema: optionalText },
  CF_API: { schema: httpUrl.optional() },
  CF_USERNAME: { schema: optionalText },
  CF_PASSWORD: { schema: secretText, secret: true },
  CF_CLIENT_ID: { schema: optionalText },
  CF_CLIENT_SECRET: { schema: secretText, secret: true },
  CF_APPS: { schema: commaList },
  CF_SPACE_GUID: {
    schema: z.string().trim().regex(GUID, 'must be a GUID such as 2f35885d-0c9d-4423-83ad-fd05066f8576').optional(),
  },
  CF_SKIP_SSL_VALIDATION: { schema: booleanText, default: 'false' },
  CF_CONCURRENCY: { schema: integerText(1, 64), default: '4' },
  CF_TIMEOUT: { schema: durationText, default: '30s' },
  POLL_SCHEDULE: { schema: cronText, default: '*/5 * * * * *' },
  COLLECT_INSTANCES: { schema: integerText(1, 1000), default: '1' },
  COLLECT_INSTANCE_INDEX: { schema: integerText(0, 999).optional() },
  SEARCH_URL: { schema: httpUrl.optional() },
  SEARCH_INDEX: { schema: z.string().min(1), default: 'logs-app-*' },
  SEARCH_USERNAME: { schema: optionalText },
  SEARCH_PASSWORD: { schema: secretText, secret: true },
  SEARCH_API_KEY: { schema: secretText, secret: true },
  ROUTER_LOG_FORMAT: {
    schema: z.enum(['auto', 'logsearch', 'raw'], { error: 'must be one of auto, logsearch, raw' }),
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
    schema: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name'),
    default: 'X-Correlation-Id',
  },
  PORT: { schema: integerText(0, 65535), default: '9469' },
  METRICS_BEARER_TOKEN: { schema: secretText, secret: true },
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    }),
    default: 'info',
  },
  DB_BUFFER_RECORDS: { schema: integerText(1, 10_000_000), default: '100000' },
  RETENTION: {
    schema: z
      .string()
      .trim()
      .refine((v) => (parseDuration(v) ?? 0) >= 86_400_000, 'must be a duration of at least a day, e.g. 180d')
      .transform((v) => /** @type {number} */ (parseDuration(v)))
      .optional(),
  },
  DRAIN_TOKEN: {
    schema: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
    secret: true,
  },
  DRAIN_TCP_PORT: { schema: integerText(0, 65535).optional() },
  DRAIN_TLS_CERT: { schema: optionalText },
  DRAIN_TLS_KEY: { schema: secretText, secret: true },
  DRAIN_BUFFER_RECORDS: { schema: integerText(100, 10_000_000), default: '20000' },
  LOG_CACHE_URL: {
    schema: z
      .union([z.literal('auto'), httpUrl], {
        error: 'must be an http(s):// URL or "auto" (the log_cache link of the Cloud Controller root)',
      })
      .optional(),
  },
  LOG_CACHE_SCHEDULE: { schema: cronText, default: '*/15 * * * * *' },
  LOG_CACHE_LOOKBACK: { schema: durationText, default: '5m' },
  // Set by `cf run-task` / the worker's environment for the load generator.
  RUN_ID: { schema: integerText(1, Number.MAX_SAFE_INTEGER).optional() },
  CF_INSTANCE_INDEX: { schema: integerText(0, 1_000_000).optional() },
};

export const SETTING_KEYS = Object.freeze(Object.keys(SETTINGS));

/** Every default in one place. Durations are strings as a user would write them. */
export const DEFAULTS = Object.freeze(
  Object.fromEntries(
    Object.entries(SETTINGS).flatMap(([key, s]) => (s.default === undefined ? [] : [[key, s.default]])),
  ),
);

/** Keys whose values never appear in a log line or error message. */
export const SECRET_KEYS = Object.freeze(SETTING_KEYS.filter((key) => SETTINGS[key].secret));

export const schema = z.object(Object.fromEntries(Object.entries(SETTINGS).map(([key, s]) => [key, s.schema])));
