// One rule for app GUIDs in CF_APPS, shared by the Cloud Controller and router-log sources.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldNamesFor } from '../../collector/sources/router-logs/documents.js';
import { windowQuery } from '../../collector/sources/router-logs/index.js';
import { splitApps } from '../../core/ids.js';

const UPPER = '1EC90566-397F-4238-A452-AD4D246F73E4';
const lower = UPPER.toLowerCase();
// 36 characters of hex digits and dashes, but no GUID: an app name.
const NOT_A_GUID = 'abcdef01-2345-6789-abcd-ef0123456789-'.slice(1);

describe('app GUIDs in CF_APPS', () => {
  it('splitApps: GUIDs lower-cased, anything else a name', () => {
    assert.deepEqual(splitApps([UPPER, 'shop', NOT_A_GUID]), { guids: [lower], names: ['shop', NOT_A_GUID] });
  });

  it('the router-log query matches a GUID given in upper case as the platform writes it, and a GUID-like name as a name', () => {
    const fields = fieldNamesFor('auto', {});
    const query = windowQuery(fields, [UPPER, NOT_A_GUID], '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z');
    const apps = /** @type {any} */ (query.bool.filter.at(-1)).bool.should;
    assert.deepEqual(apps, [
      { match_phrase: { [fields.appName]: NOT_A_GUID } },
      { match_phrase: { [fields.appGuid]: lower } },
    ]);
  });
});
