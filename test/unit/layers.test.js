// The parts of the code and the imports allowed between them are stated once, in docs/layers.json.
// This reads every product module's imports (static, dynamic, by a template's fixed folder, and JSDoc
// type imports) and fails on an import the file does not allow, on a module of no part, on a
// cycle, and when the file's known violations are not exactly the ones left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * @typedef {{ is: string[], says: string, apart?: boolean }} Part
 * @typedef {{ from: string, to: string, why: string }} Known
 * @type {{ parts: Record<string, Part>, arrows: [string, string, string[]?][], never: string[][],
 *   knownViolations: Known[] }}
 */
const LAYERS = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/layers.json'), 'utf8'));
/** Relative specifiers; a template literal's up to its first substitution (a folder of modules). */
const SPECIFIER = /(?:from\s+|import\s*\(\s*)(?:['"](\.{1,2}\/[^'"]+)['"]|`(\.{1,2}\/[^`$]*))/g;

/** Every entry of every part, with its part: longest first, so a file named wins over its folder. */
const ENTRIES = Object.entries(LAYERS.parts)
  .flatMap(([name, part]) => part.is.map((entry) => ({ entry, name })))
  .sort((a, b) => b.entry.length - a.entry.length);
const FOLDERS = [...new Set(ENTRIES.map(({ entry }) => entry.split('/')[0]))];

/** @param {string} dir @returns {string[]} */
function modules(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return /\.m?js$/.test(entry.name) ? [full] : [];
  });
}

/** @param {string} file */
const relative = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/** @param {string} rel a module, or a folder ending in / */
const partOf = (rel) => ENTRIES.find(({ entry }) => (entry.endsWith('/') ? rel.startsWith(entry) : rel === entry));

/** The unit of a module in an 'apart' part: its first name under the part's folder, without .js. */
const unitOf = (/** @type {string} */ rel) => {
  const found = partOf(rel);
  return found
    ? rel
        .slice(found.entry.length)
        .split('/')[0]
        .replace(/\.m?js$/, '')
    : rel;
};

/** @param {string} file @returns {string[]} the modules (or folders, ending in /) it imports */
function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map(([, plain, template]) => {
    const target = relative(path.resolve(path.dirname(file), plain ?? template));
    return plain ? target : `${target.replace(/\/?$/, '')}/`;
  });
}

/**
 * Why `from` may not import `to`, or undefined when it may.
 * @param {string} from @param {string} to
 */
function refusal(from, to) {
  const [a, b] = [partOf(from)?.name, partOf(to)?.name];
  if (!a || !b) return `${a ? to : from} is of no part`;
  if (a === b) {
    if (!LAYERS.parts[a].apart || unitOf(from) === unitOf(to)) return undefined;
    return `${a}: ${LAYERS.parts[a].says}`;
  }
  const arrow = LAYERS.arrows.find(([x, y]) => x === a && y === b);
  if (arrow && (!arrow[2] || arrow[2].some((entry) => from === entry || from.startsWith(entry)))) return undefined;
  const never = LAYERS.never.find(([x, y]) => x === a && y === b);
  return never ? never[2] : `no arrow ${a} -> ${b}${arrow ? ' from this module' : ''}`;
}

describe('module layers (docs/layers.json)', () => {
  const files = FOLDERS.flatMap((folder) => modules(path.join(ROOT, folder))).map(relative);
  const graph = new Map(
    files.map((file) => [file, importsOf(path.join(ROOT, file)).filter((t) => FOLDERS.includes(t.split('/')[0]))]),
  );

  it('finds the product modules and their imports', () => {
    assert.ok(files.length > 150, `${files.length} modules`);
    assert.ok([...graph.values()].flat().length > 300, 'imports between them');
  });

  it('states each part once: no entry in two parts, arrows and never between parts it names, never against no arrow', () => {
    const entries = ENTRIES.map(({ entry }) => entry);
    assert.deepEqual(
      entries.filter((entry, i) => entries.indexOf(entry) !== i),
      [],
    );
    const names = Object.keys(LAYERS.parts);
    for (const [a, b] of [...LAYERS.arrows, ...LAYERS.never]) assert.ok(names.includes(a) && names.includes(b), a + b);
    const refused = LAYERS.never.filter(([a, b]) => LAYERS.arrows.some(([x, y]) => x === a && y === b));
    assert.deepEqual(refused, []);
  });

  it('puts every product module in a part', () => {
    assert.deepEqual(
      files.filter((file) => !partOf(file)),
      [],
    );
  });

  it('imports only along the arrows, apart from the known violations listed', () => {
    const known = new Set(LAYERS.knownViolations.map(({ from, to }) => `${from} -> ${to}`));
    /** @type {string[]} */
    const found = [];
    for (const [file, targets] of graph) {
      for (const target of new Set(targets)) {
        const why = refusal(file, target);
        if (why && !known.has(`${file} -> ${target}`)) found.push(`${file} -> ${target}: ${why}`);
        if (why) known.delete(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(found, [], 'imports docs/layers.json does not allow');
    assert.deepEqual([...known], [], 'known violations that are gone: delete them from docs/layers.json');
  });

  it('takes every arrow somewhere, so the file says what the code does', () => {
    const taken = new Set(
      [...graph].flatMap(([file, targets]) => targets.map((t) => `${partOf(file)?.name} ${partOf(t)?.name}`)),
    );
    assert.deepEqual(
      LAYERS.arrows.filter(([a, b]) => !taken.has(`${a} ${b}`)),
      [],
    );
  });

  it('has no import cycle', () => {
    /** @type {Map<string, 'visiting' | 'done'>} */
    const state = new Map();
    /** @type {string[]} */
    const cycles = [];
    /** @param {string} file @param {string[]} trail */
    const visit = (file, trail) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    assert.deepEqual(cycles, []);
  });
});
