import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import {
  GROUPS,
  REFERENCE_PATH,
  SETTING_DOCS,
  renderConfigurationReference,
} from '../../collector/config/reference.js';
import { DEFAULTS, SECRET_KEYS, SETTING_KEYS } from '../../collector/config/settings.js';

test('docs/configuration.md is the fresh generation (npm run docs:config)', () => {
  const committed = fs.readFileSync(REFERENCE_PATH, 'utf8');
  assert.ok(
    committed === renderConfigurationReference(),
    'docs/configuration.md differs from collector/config/settings.js: run `npm run docs:config` and commit it',
  );
});

test('every setting is documented in a known section, and nothing else is', () => {
  assert.deepEqual(Object.keys(SETTING_DOCS).sort(), [...SETTING_KEYS].sort());
  for (const [key, doc] of Object.entries(SETTING_DOCS)) assert.ok(GROUPS.includes(doc.group), `${key}: ${doc.group}`);
});

test('the page shows every default and marks every secret, as the settings table says', () => {
  const rows = new Map(
    renderConfigurationReference()
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => [/^\| `([A-Z_]+)`/.exec(line)?.[1], line]),
  );
  assert.equal(rows.size, SETTING_KEYS.length);
  for (const [key, value] of Object.entries(DEFAULTS)) assert.ok(rows.get(key)?.includes(`| \`${value}\` |`), key);
  for (const key of SETTING_KEYS)
    assert.equal(rows.get(key)?.includes('**secret**'), SECRET_KEYS.includes(key), `${key} secret marking`);
});
