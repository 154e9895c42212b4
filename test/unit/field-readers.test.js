import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compiledFields, extraPath, fieldOf, valueAt } from '../../collector/sources/router-logs/field-values.js';
import { fieldNamesFor } from '../../collector/sources/router-logs/documents.js';
import { lineDocument, logsearchDocument, makeRequests, rawDocument } from '../support/router-docs.js';

/**
 * The lookup as it was before each path had a reader of its own: the whole path as a key, then every
 * split point, head first, the rest looked up the same way.
 * @param {any} source @param {string} path @returns {unknown}
 */
function referenceValueAt(source, path) {
  if (source === null || typeof source !== 'object') return undefined;
  const direct = source[path];
  if (direct !== undefined) return direct;
  for (let i = path.indexOf('.'); i >= 0 && i < path.length - 1; i = path.indexOf('.', i + 1)) {
    const inner = source[path.slice(0, i)];
    if (inner !== undefined) {
      const value = referenceValueAt(inner, path.slice(i + 1));
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/** fieldOf by the lookup it replaces: no field is named by an empty path. @param {any} source @param {string} path */
const referenceFieldOf = (source, path) => (path ? referenceValueAt(source, path) : undefined);

/** Every path the mappings read: the presets' fields and the extra fields' headers. */
function mappedPaths() {
  const paths = new Set();
  for (const format of /** @type {const} */ (['auto', 'logsearch', 'raw'])) {
    const fields = fieldNamesFor(format, {});
    for (const path of Object.values(fields)) if (path) paths.add(path);
    for (const name of ['instance_id', 'x_cf_routererror', 'x_b3_traceid', 'traceparent', 'b3', 'x_correlation_id'])
      if (fields.extra) paths.add(`${fields.extra}.${name}`);
  }
  return [...paths, '@raw', '@message', 'message', 'log'];
}

/** Keys hard to write in code: quotes, backslashes, line separators, lone surrogates, dots, prototype names. */
const ODD_KEYS = [
  'a"b',
  "a'b",
  'a\\b',
  'a\u2028b',
  'a\u2029b',
  '\ud800',
  'a\nb',
  '${x}',
  '`',
  '0',
  '',
  '__proto__',
  'constructor',
  'toString',
];

describe("a path's reader (field-values.js): the same value as the lookup it replaces", () => {
  it("reads every mapped field of the bench's documents and of every document shape the tests use", () => {
    const requests = makeRequests(200, Date.parse('2026-11-21T00:00:00Z'), 3600_000, 'readers');
    const documents = requests.flatMap((r) => [
      logsearchDocument(r),
      rawDocument(r),
      lineDocument(r, 'log'),
      lineDocument(r, '@message'),
    ]);
    const paths = mappedPaths();
    let found = 0;
    for (const document of documents)
      for (const path of paths) {
        const value = fieldOf(document, path);
        assert.equal(value, referenceValueAt(document, path), path);
        if (value !== undefined) found += 1;
      }
    // Most of them are there: the comparison is not one of undefined with undefined.
    assert.ok(found > documents.length * 3, `${found}`);
    const at = compiledFields(fieldNamesFor('logsearch', {}));
    const [first] = documents;
    assert.equal(valueAt(first, /** @type {any} */ (at.appId)), requests[0].appGuid);
    assert.equal(valueAt(first, extraPath('rtr.extra', 'x_correlation_id')), requests[0].id);
  });

  it('prefers the whole path as a key, then the first split, in dotted keys, nested objects or both', () => {
    const cases = [
      [{ 'rtr.app.id': 'whole', rtr: { app: { id: 'nested' } } }, 'rtr.app.id', 'whole'],
      [{ rtr: { 'app.id': 'dotted', app: { id: 'nested' } } }, 'rtr.app.id', 'dotted'],
      [{ 'rtr.app': { id: 'second split' } }, 'rtr.app.id', 'second split'],
      [{ rtr: { app: {} }, 'rtr.app': { id: 'after a miss' } }, 'rtr.app.id', 'after a miss'],
      [{ rtr: null, 'rtr.app': { id: 'past a null' } }, 'rtr.app.id', 'past a null'],
      [{ rtr: 'text', 'rtr.app': { id: 'past text' } }, 'rtr.app.id', 'past text'],
      [{ rtr: { app: [{ id: 'in an array' }] } }, 'rtr.app.0.id', 'in an array'],
      [{ rtr: { app: { id: null } } }, 'rtr.app.id', null],
      [{ rtr: { app: { id: 0 } } }, 'rtr.app.id', 0],
      [{ 'a.': 'trailing dot' }, 'a.', 'trailing dot'],
      [{ a: { '': 'empty key' } }, 'a.', undefined],
      [{ '': { b: 'leading dot' } }, '.b', 'leading dot'],
      [{ a: { '': { b: 'two dots' } } }, 'a..b', 'two dots'],
    ];
    for (const [document, path, expected] of cases) {
      assert.equal(fieldOf(document, /** @type {string} */ (path)), expected, /** @type {string} */ (path));
      assert.equal(referenceValueAt(document, /** @type {string} */ (path)), expected, /** @type {string} */ (path));
    }
    assert.equal(fieldOf(null, 'a'), undefined);
    assert.equal(fieldOf('text', 'length'), undefined);
  });

  it('reads keys with quotes, backslashes, line separators, lone surrogates and prototype names as keys', () => {
    for (const key of ODD_KEYS)
      for (const path of [key, `x.${key}`, `${key}.y`]) {
        const documents = [{ [path]: 'whole' }, { x: { [key]: 'nested' } }, { [key]: { y: 'head' } }, {}];
        for (const document of documents)
          assert.equal(fieldOf(document, path), referenceFieldOf(document, path), JSON.stringify(path));
      }
  });

  it('gives the same value for any JSON document and any path made of its keys (fast-check)', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'a.b', 'b.a', '', '.', ...ODD_KEYS), fc.string({ maxLength: 4 }));
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()),
        fc.dictionary(key, tie('tree'), { maxKeys: 4 }),
        fc.array(tie('tree'), { maxLength: 3 }),
      ),
    }));
    fc.assert(
      fc.property(tree, fc.array(key, { minLength: 1, maxLength: 4 }), (document, keys) => {
        const path = keys.join('.');
        assert.equal(fieldOf(document, path), referenceFieldOf(document, path));
      }),
      { numRuns: 2000 },
    );
  });
});
