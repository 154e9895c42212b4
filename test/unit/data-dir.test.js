import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultDataDir } from '../../collector/config/data-dir.js';

// Guards issue 12: the default was `.paasmon` in the current directory, so from another directory
// a user's runs "vanished".
describe('default PAASMON_DATA_DIR', () => {
  it('is the XDG data home of the user, whatever the current directory', () => {
    assert.equal(defaultDataDir({}, { uid: 1000, home: '/home/ann' }), '/home/ann/.local/share/paasmon');
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/data/ann' }, { uid: 1000, home: '/home/ann' }), '/data/ann/paasmon');
    // A relative XDG_DATA_HOME is invalid by the spec and ignored.
    assert.equal(
      defaultDataDir({ XDG_DATA_HOME: 'rel' }, { uid: 1000, home: '/home/ann' }),
      '/home/ann/.local/share/paasmon',
    );
  });

  it('is /var/tmp/paasmon-0 for root, which the server (run as its own user) can reach', () => {
    assert.equal(
      defaultDataDir({ XDG_DATA_HOME: '/root/.local/share' }, { uid: 0, home: '/root' }),
      '/var/tmp/paasmon-0',
    );
  });
});
