import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig, redact, requireCloudController } from '../../collector/config/index.js';
import { parseDuration } from '../../core/durations.js';
import { scrub } from '../../core/secrets.js';
import { ConfigError } from '../../core/errors.js';

const CF = { CF_API: 'https://api.sys.example.com', CF_USERNAME: 'admin', CF_PASSWORD: 's3cret-pw', CF_APPS: 'a,b' };

/** @param {Record<string, string>} env @param {string} variable @param {RegExp} message */
function assertConfigError(env, variable, message) {
  assert.throws(
    () => requireCloudController(loadConfig(env)),
    (err) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
      assert.equal(err.variable, variable);
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('loadConfig defaults', () => {
  it('uses the contract defaults and the embedded database', () => {
    const config = loadConfig({});
    assert.equal(config.pollSchedule, '*/5 * * * * *');
    assert.equal(config.port, 9469);
    assert.equal(config.databaseSource, 'embedded');
    assert.equal(config.databaseUrl, undefined);
    // A per-user directory, never one relative to the current directory (issue 12).
    assert.ok(path.isAbsolute(config.dataDir), config.dataDir);
    assert.equal(config.cf.skipSslValidation, false);
    assert.equal(config.cf.concurrency, 4);
    assert.equal(config.cf.timeoutMs, 30_000);
    assert.equal(config.ingestDelayMs, 30_000);
    assert.equal(config.search.index, 'logs-app-*');
    assert.equal(config.correlationHeader, 'X-Correlation-Id');
    assert.equal(config.logLevel, 'info');
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.cf));
  });

  it('splits CF_APPS and trims names', () => {
    assert.deepEqual(loadConfig({ CF_APPS: ' shop , 1cb006ee-fb05-47e1-b541-c34179ddc446,, cart' }).cf.apps, [
      'shop',
      '1cb006ee-fb05-47e1-b541-c34179ddc446',
      'cart',
    ]);
  });

  it('parses durations in ms, s, m and h', () => {
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('30s'), 30_000);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('30'), undefined);
  });
});

describe('VCAP_SERVICES', () => {
  const vcap = (/** @type {unknown} */ services) => JSON.stringify(services);

  it('takes the PostgreSQL binding found by tag, with a uri', () => {
    const config = loadConfig({
      VCAP_SERVICES: vcap({
        'a9s-postgresql11': [
          {
            name: 'db',
            label: 'a9s-postgresql11',
            tags: ['sql', 'postgresql'],
            credentials: { uri: 'postgres://u:p@db.example:5432/d' },
          },
        ],
      }),
    });
    assert.equal(config.databaseUrl, 'postgres://u:p@db.example:5432/d');
    assert.equal(config.databaseSource, 'vcap');
  });

  it('takes the binding found by label, building the URL from host/port/username/password/name', () => {
    const config = loadConfig({
      VCAP_SERVICES: vcap({
        postgres: [
          {
            name: 'db',
            label: 'postgres',
            tags: [],
            credentials: { host: 'h.example', port: 6543, username: 'us er', password: 'p@ss/word', name: 'paasmon' },
          },
        ],
      }),
    });
    assert.equal(config.databaseUrl, 'postgres://us%20er:p%40ss%2Fword@h.example:6543/paasmon');
    const url = new URL(/** @type {string} */ (config.databaseUrl));
    assert.equal(decodeURIComponent(url.password), 'p@ss/word');
  });

  it('accepts user / database field names and defaults the port to 5432', () => {
    const config = loadConfig({
      VCAP_SERVICES: vcap({
        'user-provided': [],
        elephantsql: [
          {
            name: 'x',
            label: 'elephantsql',
            tags: ['postgres'],
            credentials: { hostname: 'h', user: 'u', password: 'p', database: 'd' },
          },
        ],
      }),
    });
    assert.equal(config.databaseUrl, 'postgres://u:p@h:5432/d');
  });

  it('names the missing credential of a binding', () => {
    assert.throws(
      () =>
        loadConfig({
          VCAP_SERVICES: vcap({
            postgresql: [{ name: 'db', label: 'postgresql', credentials: { host: 'h', user: 'u', name: 'd' } }],
          }),
        }),
      {
        name: 'ConfigError',
        message: /VCAP_SERVICES: PostgreSQL service "db" has neither credentials.uri nor credentials.password/,
      },
    );
  });

  it('reports invalid JSON in VCAP_SERVICES', () => {
    assert.throws(() => loadConfig({ VCAP_SERVICES: '{"postgres": [' }), {
      name: 'ConfigError',
      variable: 'VCAP_SERVICES',
      message: /VCAP_SERVICES is not valid JSON/,
    });
    assert.throws(() => loadConfig({ VCAP_SERVICES: '[1]' }), {
      name: 'ConfigError',
      message: /VCAP_SERVICES must be a JSON object/,
    });
  });

  it('reads contract keys from the user-provided service "paasmon"; plain environment wins', () => {
    const services = vcap({
      'user-provided': [
        {
          name: 'paasmon',
          label: 'user-provided',
          tags: [],
          credentials: {
            CF_API: 'https://api.cf.example',
            CF_PASSWORD: 'from-ups',
            CF_CONCURRENCY: 8,
            CF_SKIP_SSL_VALIDATION: true,
          },
        },
      ],
    });
    const config = loadConfig({ VCAP_SERVICES: services, CF_PASSWORD: 'from-env' });
    assert.equal(config.cf.api, 'https://api.cf.example');
    assert.equal(config.cf.password, 'from-env');
    assert.equal(config.cf.concurrency, 8);
    assert.equal(config.cf.skipSslValidation, true);
  });

  it('rejects an unknown key in the "paasmon" service, naming it', () => {
    const services = vcap({ 'user-provided': [{ name: 'paasmon', credentials: { CF_PASWORD: 'typo' } }] });
    assert.throws(() => loadConfig({ VCAP_SERVICES: services }), {
      name: 'ConfigError',
      message: /unknown key CF_PASWORD/,
    });
  });

  it('lets a bound PostgreSQL service win over DATABASE_URL in the "paasmon" service, and env win over both', () => {
    const services = vcap({
      'user-provided': [{ name: 'paasmon', credentials: { DATABASE_URL: 'postgres://ups/x' } }],
      postgresql: [{ name: 'db', label: 'postgresql', credentials: { uri: 'postgresql://bound/x' } }],
    });
    assert.equal(loadConfig({ VCAP_SERVICES: services }).databaseUrl, 'postgresql://bound/x');
    const fromEnv = loadConfig({ VCAP_SERVICES: services, DATABASE_URL: 'postgres://env/x' });
    assert.equal(fromEnv.databaseUrl, 'postgres://env/x');
    assert.equal(fromEnv.databaseSource, 'env');
  });

  it('ignores services without a postgres tag or label', () => {
    const config = loadConfig({
      VCAP_SERVICES: vcap({
        'p.redis': [{ name: 'cache', label: 'p.redis', tags: ['redis'], credentials: { uri: 'redis://x' } }],
      }),
    });
    assert.equal(config.databaseSource, 'embedded');
  });
});

describe('invalid values name the variable and say what is wrong', () => {
  const cases = /** @type {Array<[Record<string, string>, string, RegExp]>} */ ([
    [
      { ...CF, CF_API: 'api.sys.example.com' },
      'CF_API',
      /CF_API must be an http:\/\/ or https:\/\/ URL \(got "api.sys.example.com"\)/,
    ],
    [{ ...CF, POLL_SCHEDULE: '*/5 * * *' }, 'POLL_SCHEDULE', /POLL_SCHEDULE must be a cron expression with seconds/],
    [
      { ...CF, POLL_SCHEDULE: '61 * * * * *' },
      'POLL_SCHEDULE',
      /POLL_SCHEDULE must be a cron expression.*61 is a invalid expression for second/,
    ],
    [
      { ...CF, CF_SKIP_SSL_VALIDATION: 'yes' },
      'CF_SKIP_SSL_VALIDATION',
      /CF_SKIP_SSL_VALIDATION must be "true" or "false"/,
    ],
    [{ ...CF, PORT: '70000' }, 'PORT', /PORT must be a whole number from 0 to 65535/],
    [{ ...CF, PORT: 'http' }, 'PORT', /PORT must be a whole number/],
    [
      { ...CF, LOG_LEVEL: 'verbose' },
      'LOG_LEVEL',
      /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/,
    ],
    [{ ...CF, CF_SPACE_GUID: 'dev-space' }, 'CF_SPACE_GUID', /CF_SPACE_GUID must be a GUID/],
    [{ ...CF, CF_TIMEOUT: '30' }, 'CF_TIMEOUT', /CF_TIMEOUT must be a duration such as 500ms, 30s or 2m/],
    [{ ...CF, CF_CONCURRENCY: '0' }, 'CF_CONCURRENCY', /CF_CONCURRENCY must be a whole number from 1 to 64/],
    [
      { ...CF, ROUTER_LOG_FORMAT: 'json' },
      'ROUTER_LOG_FORMAT',
      /ROUTER_LOG_FORMAT must be one of auto, logsearch, raw/,
    ],
    [
      { ...CF, DATABASE_URL: 'mysql://x' },
      'DATABASE_URL',
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL$/,
    ],
    [{ ...CF, CF_API: '' }, 'CF_API', /CF_API is required/],
    [{ ...CF, CF_PASSWORD: '' }, 'CF_PASSWORD', /CF_PASSWORD is required when CF_USERNAME is set/],
    [
      { ...CF, CF_USERNAME: '', CF_PASSWORD: '' },
      'CF_USERNAME',
      /CF_USERNAME \+ CF_PASSWORD or CF_CLIENT_ID \+ CF_CLIENT_SECRET are required/,
    ],
    [
      { ...CF, CF_USERNAME: '', CF_PASSWORD: '', CF_CLIENT_SECRET: 'x' },
      'CF_CLIENT_ID',
      /CF_CLIENT_ID is required when CF_CLIENT_SECRET is set/,
    ],
    [{ ...CF, CF_CLIENT_ID: 'id', CF_CLIENT_SECRET: 'x' }, 'CF_CLIENT_ID', /choose one UAA grant/],
    [{ ...CF, CF_APPS: ' , ' }, 'CF_APPS', /CF_APPS is required/],
  ]);
  for (const [env, variable, message] of cases) {
    it(`${variable}: ${message.source.slice(0, 60)}`, () => assertConfigError(env, variable, message));
  }

  it('never echoes a secret value in the message', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://user:hunter22@db/x' }),
      (err) => {
        assert.ok(err instanceof ConfigError);
        assert.doesNotMatch(err.message, /hunter22/);
        return true;
      },
    );
  });

  it('accepts client credentials or a space without apps', () => {
    const config = loadConfig({
      CF_API: 'https://api.x',
      CF_CLIENT_ID: 'id',
      CF_CLIENT_SECRET: 's',
      CF_SPACE_GUID: '2f35885d-0c9d-4423-83ad-fd05066f8576',
    });
    assert.doesNotThrow(() => requireCloudController(config));
  });
});

describe('redaction', () => {
  it('redact() hides every secret, including the password inside DATABASE_URL', () => {
    const config = loadConfig({ ...CF, DATABASE_URL: 'postgres://u:db-pass-123@h/d', METRICS_BEARER_TOKEN: 'tok-abc' });
    const text = JSON.stringify(redact(config));
    for (const secret of ['s3cret-pw', 'db-pass-123', 'tok-abc']) assert.ok(!text.includes(secret), `${secret} leaked`);
    assert.match(text, /\[REDACTED\]/);
    assert.ok(text.includes('api.sys.example.com'));
  });

  it('scrub() also replaces JSON-escaped forms', () => {
    assert.equal(scrub('{"p":"a\\"b"}', ['a"b']), '{"p":"[REDACTED]"}');
  });
});
