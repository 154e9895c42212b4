// docs/configuration.md, generated from the settings table so the reference cannot drift from the
// code: defaults, secrecy and allowed values come from SETTINGS, the words from SETTING_DOCS below.
// Run: npm run docs:config (a unit test fails when the committed page differs).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from './settings.js';

/** @typedef {{ group: string, text: string }} SettingDoc */

/** Sections of the page, in order. */
export const GROUPS = [
  'Cloud Controller',
  'Database',
  'HTTP endpoints and logging',
  'Router logs from Elasticsearch / OpenSearch',
  'Router logs from a file',
  'Syslog drain',
  'Log Cache',
  'Load generator',
  'Demo',
];

/** What each setting means, for users. Every key of SETTINGS has one; a test checks it. */
/** @type {Record<string, SettingDoc>} */
export const SETTING_DOCS = {
  CF_API: {
    group: 'Cloud Controller',
    text: 'Cloud Controller URL, e.g. `https://api.sys.example.com` (required by `poll` and `collect`)',
  },
  CF_USERNAME: {
    group: 'Cloud Controller',
    text: 'UAA password grant with client `cf` (as the cf CLI), with `CF_PASSWORD`',
  },
  CF_PASSWORD: { group: 'Cloud Controller', text: 'password of `CF_USERNAME`' },
  CF_CLIENT_ID: {
    group: 'Cloud Controller',
    text: 'UAA client-credentials grant instead of a user, with `CF_CLIENT_SECRET`',
  },
  CF_CLIENT_SECRET: { group: 'Cloud Controller', text: 'secret of `CF_CLIENT_ID`' },
  CF_APPS: { group: 'Cloud Controller', text: 'comma list of app names or GUIDs to watch' },
  CF_SPACE_GUID: {
    group: 'Cloud Controller',
    text: 'scope for the names in `CF_APPS`; alone, watch every app of the space',
  },
  CF_SKIP_SSL_VALIDATION: {
    group: 'Cloud Controller',
    text: 'TLS of the Cloud Controller and UAA is verified unless this is `true`',
  },
  CF_CONCURRENCY: { group: 'Cloud Controller', text: 'Cloud Controller requests in flight at once (1 to 64)' },
  CF_TIMEOUT: {
    group: 'Cloud Controller',
    text: 'timeout of one Cloud Controller or UAA request (`500ms`, `30s`, `2m`)',
  },
  POLL_SCHEDULE: { group: 'Cloud Controller', text: 'when `collect` polls: cron with seconds' },
  DATABASE_URL: {
    group: 'Database',
    text:
      'PostgreSQL URL (`sslmode`, `sslrootcert`/`sslcert`/`sslkey` files honoured); else the first `VCAP_SERVICES` ' +
      'binding tagged or labelled postgres/postgresql, with its TLS settings (`sslmode`, `require_ssl`, PEM ' +
      '`sslrootcert`/`sslcert`/`sslkey` in the credentials); else the embedded PostgreSQL',
  },
  PAASMON_DATA_DIR: {
    group: 'Database',
    text:
      'where the embedded PostgreSQL keeps its data (default `$XDG_DATA_HOME/paasmon`, i.e. ' +
      '`~/.local/share/paasmon`; `/var/tmp/paasmon-0` as root)',
  },
  DB_BUFFER_RECORDS: {
    group: 'Database',
    text:
      'records kept in memory while PostgreSQL is unreachable; beyond it the oldest are dropped, logged and ' +
      'counted in `paasmon_db_dropped_records_total`',
  },
  RETENTION: {
    group: 'Database',
    text:
      'how long raw rows are kept, e.g. `180d` (unset: for ever); `collect` then drops whole day partitions older ' +
      'than this every hour, after storing the report figures of their runs (`paasmon prune`)',
  },
  PORT: {
    group: 'HTTP endpoints and logging',
    text: 'HTTP port of `/metrics`, `/healthz` and `/drain` (Cloud Foundry sets it)',
  },
  METRICS_BEARER_TOKEN: {
    group: 'HTTP endpoints and logging',
    text:
      'when set, `/metrics` requires `Authorization: Bearer <token>`; on Cloud Foundry (`VCAP_APPLICATION` set) ' +
      '`/metrics` answers 401 without it, unless `METRICS_PUBLIC=true`',
  },
  METRICS_PUBLIC: {
    group: 'HTTP endpoints and logging',
    text:
      '`true` opens `/metrics` to anyone on Cloud Foundry without `METRICS_BEARER_TOKEN` (its route is public); ' +
      'off the platform `/metrics` is open without a token anyway; ignored when a token is set',
  },
  METRICS_RUN_SERIES_TTL: {
    group: 'HTTP endpoints and logging',
    text:
      "how long a run's `paasmon_loadgen_*{run}` series stay on `/metrics` after this process's load for it " +
      'ended (the last values get scraped); then they are removed, the run stays in PostgreSQL',
  },
  LOG_LEVEL: { group: 'HTTP endpoints and logging', text: 'how much is logged (to stderr); `debug` adds stack traces' },
  SEARCH_URL: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'Elasticsearch 7.10+ or OpenSearch 2.x/3.x holding the router logs; `collect` ingests them when set',
  },
  SEARCH_INDEX: { group: 'Router logs from Elasticsearch / OpenSearch', text: 'index pattern of the router logs' },
  SEARCH_USERNAME: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'basic auth user, with `SEARCH_PASSWORD`',
  },
  SEARCH_PASSWORD: { group: 'Router logs from Elasticsearch / OpenSearch', text: 'basic auth password' },
  SEARCH_API_KEY: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'sent as `Authorization: ApiKey <key>` instead of basic auth',
  },
  ROUTER_LOG_FORMAT: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text:
      '`auto`: per document, parsed `rtr.*` fields, else the gorouter line in `@raw`, `@message`, `message` or ' +
      '`log`; `logsearch`: Logstash-parsed `rtr.*` fields; `raw`: the gorouter line in `message`',
  },
  ROUTER_LOG_FIELDS: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text:
      'JSON overrides of field names for other stacks, e.g. `{"responseTimeMs":"router.response_time_ms"}`; keys: ' +
      'timestamp, sourceType, appName, appGuid, receivedAt, method, path, status, bytesReceived, bytesSent, ' +
      'vcapRequestId, responseTimeMs, gorouterTimeMs, appId, appIndex, extra, message, raw',
  },
  INGEST_SCHEDULE: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'when `collect` ingests router logs: cron with seconds',
  },
  INGEST_DELAY: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'read only up to now minus this, so documents indexed late are not missed',
  },
  INGEST_LOOKBACK: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text: 'where the first increment starts when there is no checkpoint yet: now − delay − this',
  },
  INGEST_MAX_SKIPPED_RATIO: {
    group: 'Router logs from Elasticsearch / OpenSearch',
    text:
      'skipped / read above which `ingest` exits 1 and `collect` shows the router-log source as `degraded` ' +
      'in `/healthz`',
  },
  ROUTER_LOG_FILE: {
    group: 'Router logs from a file',
    text:
      'a gorouter access log (or `cf logs` output) that `collect` follows on `INGEST_SCHEDULE` as it grows, ' +
      'complete lines only, from a checkpoint; a rotated file is read from its start',
  },
  ROUTER_LOG_FILE_APP: {
    group: 'Router logs from a file',
    text: 'app name for the lines of `ROUTER_LOG_FILE` (the lines carry only the app GUID)',
  },
  DRAIN_TOKEN: {
    group: 'Syslog drain',
    text:
      'when set, `collect` takes syslog drain messages at `POST /drain?token=<DRAIN_TOKEN>` on `$PORT` ' +
      '(at least 16 characters, e.g. `openssl rand -hex 32`)',
  },
  DRAIN_TCP_PORT: {
    group: 'Syslog drain',
    text:
      'when set, `collect` also takes octet-counted syslog (`syslog://`) on this port (`0`: any free port, ' +
      'logged); no token on this path: keep it private, or use TLS',
  },
  DRAIN_TLS_CERT: {
    group: 'Syslog drain',
    text: 'PEM text or file path: the `DRAIN_TCP_PORT` listener speaks TLS (`syslog-tls://`)',
  },
  DRAIN_TLS_KEY: { group: 'Syslog drain', text: 'PEM text or file path of the key of `DRAIN_TLS_CERT`' },
  DRAIN_BUFFER_RECORDS: {
    group: 'Syslog drain',
    text:
      'router requests from the drain held in memory before they are written; when full, `POST /drain` waits ' +
      'up to 3 s for room, then answers 503 (the agent sends again), and TCP reading pauses',
  },
  LOG_CACHE_URL: {
    group: 'Log Cache',
    text:
      'when set, `collect` reads Log Cache on `LOG_CACHE_SCHEDULE`: a URL such as ' +
      '`https://log-cache.sys.example.com`, or `auto` for the `log_cache` link of the Cloud Controller root',
  },
  LOG_CACHE_SCHEDULE: { group: 'Log Cache', text: 'when `collect` reads Log Cache: cron with seconds' },
  LOG_CACHE_LOOKBACK: {
    group: 'Log Cache',
    text: 'where the first read of an app starts when there is no checkpoint: now − this (Log Cache keeps minutes)',
  },
  RUN_ID: { group: 'Load generator', text: 'the run `loadgen` records into when `--run` is not given' },
  CF_INSTANCE_INDEX: {
    group: 'Load generator',
    text: 'names a load-generator worker `instance-N` (Cloud Foundry sets it)',
  },
  CORRELATION_HEADER: {
    group: 'Load generator',
    text:
      "the load generator's id header; gorouter logs it (lower case, `-` as `_`) when the operator lists it " +
      'in `router.extra_headers_to_log`',
  },
  PAASMON_JDBC_JAR: {
    group: 'Demo',
    text:
      'path of the PostgreSQL JDBC driver for the Java sample app of `paasmon demo --impl java` ' +
      '(default `/usr/share/java/postgresql.jar`, Debian package `libpostgresql-jdbc-java`)',
  },
};

/**
 * The values an enum setting accepts, read from its schema: a plain picklist (one turned into
 * another value, as a boolean, explains itself in its text). @param {any} schema
 */
function allowedValues(schema) {
  return schema.type === 'picklist' && !schema.pipe ? schema.options : null;
}

/** @param {string} text a table cell */
const cell = (text) => text.replace(/\|/g, '\\|');

/** The whole page. @returns {string} */
export function renderConfigurationReference() {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated from collector/config/settings.js and collector/config/reference.js by',
    '     `npm run docs:config`; do not edit by hand (a unit test compares it with a fresh generation). -->',
    '',
    'All configuration is environment variables, validated once at start: a bad value stops the',
    'command with exit 2 and one line naming the variable. On Cloud Foundry the same keys may come',
    'from a user-provided service named `paasmon` (`VCAP_SERVICES`); plain environment wins. Secrets',
    'are never shown in logs, error messages or `/healthz`.',
  ];
  for (const group of GROUPS) {
    lines.push('', `## ${group}`, '', '| variable | default | meaning |', '|---|---|---|');
    for (const [key, doc] of Object.entries(SETTING_DOCS)) {
      if (doc.group !== group) continue;
      const setting = SETTINGS[key];
      const values = allowedValues(setting.schema);
      const notes = [
        values ? `one of ${values.map((/** @type {string} */ v) => `\`${v}\``).join(', ')}` : '',
        setting.secret ? '**secret**' : '',
      ].filter(Boolean);
      const meaning = notes.length ? `${doc.text} (${notes.join('; ')})` : doc.text;
      const fallback = setting.default === undefined ? '' : `\`${setting.default}\``;
      lines.push(`| \`${key}\` | ${cell(fallback)} | ${cell(meaning)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const REFERENCE_PATH = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(REFERENCE_PATH, renderConfigurationReference());
  process.stdout.write(`written: ${REFERENCE_PATH}\n`);
}
