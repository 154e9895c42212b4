// The settings table's validation as the user sees it: the messages kept word for word through the
// change of validation library, the first wrong setting named, and the cron check's shortcut for the
// default schedules (node-cron loaded only for another text) agreeing with node-cron itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import cron from 'node-cron';
import { loadConfig } from '../../collector/config/index.js';
import { DEFAULTS, cronVerdict } from '../../collector/config/settings.js';

/** The one-line message of loadConfig(env), or undefined. @param {Record<string, string>} env */
function messageOf(env) {
  try {
    loadConfig(env);
    return undefined;
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
}

describe('settings: messages and values', () => {
  it('names an empty text as it always did', () => {
    assert.equal(
      messageOf({ PAASMON_DATA_DIR: '   ' }),
      'PAASMON_DATA_DIR Too small: expected string to have >=1 characters (got "   ")',
    );
  });

  it('names the first wrong setting in the table, whatever the order of the environment', () => {
    assert.match(String(messageOf({ PORT: 'x', CF_API: 'y' })), /^CF_API must be an http/);
    assert.match(String(messageOf({ RUN_ID: '0', LOG_LEVEL: 'loud' })), /^LOG_LEVEL must be one of/);
  });

  it('takes LOG_CACHE_URL as "auto" or an http(s) URL, and names both otherwise', () => {
    assert.equal(
      loadConfig({ LOG_CACHE_URL: ' https://log-cache.example.com/ ' }).logCache.url,
      'https://log-cache.example.com',
    );
    assert.equal(loadConfig({ LOG_CACHE_URL: 'auto' }).logCache.url, 'auto');
    assert.equal(
      messageOf({ LOG_CACHE_URL: 'ftp://x' }),
      'LOG_CACHE_URL must be an http(s):// URL or "auto" (the log_cache link of the Cloud Controller root) ' +
        '(got "ftp://x")',
    );
  });

  it('reads CF_APPS as a list, empty when unset', () => {
    assert.deepEqual(loadConfig({}).cf.apps, []);
    assert.deepEqual(loadConfig({ CF_APPS: 'a, b,,c ' }).cf.apps, ['a', 'b', 'c']);
  });
});

describe('settings: cron texts', () => {
  it('passes the default schedules without node-cron, and node-cron finds them valid too', () => {
    for (const key of ['POLL_SCHEDULE', 'INGEST_SCHEDULE', 'LOG_CACHE_SCHEDULE']) {
      assert.deepEqual(cronVerdict(DEFAULTS[key]), { valid: true, errors: [] });
      assert.equal(cron.validateDetailed(DEFAULTS[key]).valid, true, key);
    }
  });

  it('asks node-cron about any other text', () => {
    assert.equal(cronVerdict('*/7 * * * * *').valid, true);
    const verdict = cronVerdict('61 * * * * *');
    assert.equal(verdict.valid, false);
    assert.deepEqual(verdict, cron.validateDetailed('61 * * * * *'));
  });
});
