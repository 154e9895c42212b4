// docs/architecture.md is what a newcomer reads first: it stays short, and every repository path it
// names (in `code` or as a link) exists, so a move of a file fails here until the doc follows it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(new URL('../../', import.meta.url).pathname);
const PATH_EXTENSIONS = /\.(js|mjs|json|md|sql|yml|yaml|prom|java|py|jmx|sh)$/;
// Spans that hold a slash but name no file of the repository.
const NOT_PATHS = new Set(['2xx/5xx']);

/**
 * The repository paths a markdown text names: inline code that holds a slash or ends in a file
 * extension (no spaces, no URL, no option), and link targets that are not URLs. Code spans are
 * relative to the repository, links to the file's own folder, with a link's `#anchor` apart.
 * @param {string} markdown
 * @param {string} folder the markdown file's folder, relative to the repository
 * @returns {{ line: number, written: string, path: string, anchor?: string }[]}
 */
export function namedPaths(markdown, folder) {
  const found = [];
  const lines = markdown.split('\n');
  let fenced = false;
  for (const [i, line] of lines.entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const [, span] of line.matchAll(/`([^`\s]+)`/g)) {
      const written = span.replace(/[.,;:]+$/, '');
      if (NOT_PATHS.has(written) || /^[-$/@]|:\/\/|=/.test(written)) continue;
      if (!written.includes('/') && !PATH_EXTENSIONS.test(written)) continue;
      found.push({ line: i + 1, written, path: written });
    }
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const [file, anchor] = target.split('#');
      const named = { line: i + 1, written: target, path: path.posix.normalize(path.posix.join(folder, file)) };
      found.push(anchor === undefined ? named : { ...named, anchor });
    }
  }
  return found;
}

/**
 * The anchors GitHub gives a markdown file's headings: lower case, punctuation dropped, spaces as `-`.
 * @param {string} markdown
 */
export function headingAnchors(markdown) {
  const anchors = new Set();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading)
      anchors.add(
        heading[1]
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, '')
          .replace(/\s/g, '-'),
      );
  }
  return anchors;
}

/** @param {{ path: string, anchor?: string }} named */
function anchorMissing(named) {
  if (named.anchor === undefined || !named.path.endsWith('.md') || !exists(named.path)) return false;
  return !headingAnchors(fs.readFileSync(path.join(ROOT, named.path), 'utf8')).has(named.anchor);
}

/**
 * Whether `name` (relative to the repository) exists; `*`, `<placeholder>` and `{a,b}` match any
 * name in their place, so `sql/views/<file>` and `report/render/{table,json}.js` are checked too.
 * @param {string} name
 */
export function exists(name) {
  const alternatives = expandBraces(name.replace(/\/$/, ''));
  return alternatives.every((one) => matchesSome(ROOT, one.split('/')));
}

/** @param {string} name */
function expandBraces(name) {
  const brace = /\{([^{}]*)\}/.exec(name);
  if (!brace) return [name];
  const [before, after] = [name.slice(0, brace.index), name.slice(brace.index + brace[0].length)];
  return brace[1].split(',').flatMap((part) => expandBraces(before + part + after));
}

/**
 * @param {string} dir
 * @param {string[]} parts
 * @returns {boolean}
 */
function matchesSome(dir, parts) {
  if (parts.length === 0) return true;
  const [first, ...rest] = parts;
  if (!/[*<]/.test(first)) {
    const next = path.join(dir, first);
    return fs.existsSync(next) && (rest.length === 0 || (fs.statSync(next).isDirectory() && matchesSome(next, rest)));
  }
  const pattern = new RegExp(
    `^${first
      .split(/\*|<[^>]*>/)
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
  return fs
    .readdirSync(dir)
    .filter((entry) => pattern.test(entry))
    .some((entry) => rest.length === 0 || matchesSome(path.join(dir, entry), rest));
}

describe('docs/architecture.md', () => {
  const text = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

  it('is at most 250 lines', () => {
    const lines = text.trimEnd().split('\n').length;
    assert.ok(lines <= 250, `${lines} lines: move reference detail to the user docs it links`);
  });

  it('names only paths that exist', () => {
    const named = namedPaths(text, 'docs');
    assert.ok(named.length >= 40, `only ${named.length} paths found: is the extraction still right?`);
    const missing = named.filter((p) => !exists(p.path)).map((p) => `architecture.md:${p.line}: ${p.written}`);
    assert.deepEqual(missing, [], 'paths named in docs/architecture.md that do not exist');
  });

  it('links only to headings that exist', () => {
    const broken = namedPaths(text, 'docs')
      .filter(anchorMissing)
      .map((p) => `architecture.md:${p.line}: ${p.written}`);
    assert.deepEqual(broken, [], 'links of docs/architecture.md to a heading that does not exist');
  });
});

describe('bench/README.md', () => {
  const text = fs.readFileSync(path.join(ROOT, 'bench/README.md'), 'utf8');

  it('is at most 300 lines and opens with one summary row per bench', () => {
    assert.ok(text.trimEnd().split('\n').length <= 300);
    const firstTable = text.slice(0, text.indexOf('\n## '));
    const benches = fs
      .readdirSync(path.join(ROOT, 'bench'))
      .filter((f) => f.endsWith('.bench.js'))
      .map((f) => f.slice(0, -'.bench.js'.length));
    const missing = benches.filter((b) => !new RegExp(`^\\| \`${b}\` \\|`, 'm').test(firstTable));
    assert.deepEqual(missing, [], 'benches without a row in the summary table before the first section');
    for (const header of ['figure', 'baseline', 'ratio', 'date', 'commit'])
      assert.match(firstTable, new RegExp(header));
  });
});

describe('the path check itself', () => {
  it('reads code spans and links, and skips what names no file', () => {
    const markdown = [
      'See `core/types.js`, `sql/views/<file>`, `report/render/{table,json}.js` and [the layers](layers.json#parts).',
      'Not paths: `POST /drain`, `/metrics`, `https://x/y`, `--format`, `run_summary`, `2xx/5xx`, [web](https://a/b).',
      '```',
      'core/in-a-fence.js',
      '```',
      'And `no/such/file.js`.',
    ].join('\n');
    const named = namedPaths(markdown, 'docs');
    assert.deepEqual(
      named.map((p) => p.path),
      ['core/types.js', 'sql/views/<file>', 'report/render/{table,json}.js', 'docs/layers.json', 'no/such/file.js'],
    );
    assert.deepEqual(
      named.map((p) => exists(p.path)),
      [true, true, true, true, false],
    );
    assert.equal(exists('report/render/{table,nope}.js'), false, 'every alternative of a brace must exist');
    assert.equal(exists('sql/views/*.nope'), false);
  });

  it("makes GitHub's heading anchors", () => {
    const anchors = headingAnchors("# A run's figures\n### What `cf push` uploads\n```\n# not a heading\n```\n");
    assert.deepEqual([...anchors], ['a-runs-figures', 'what-cf-push-uploads']);
    assert.equal(anchorMissing({ path: 'docs/architecture.md', anchor: 'a-runs-figures' }), false);
    assert.equal(anchorMissing({ path: 'docs/architecture.md', anchor: 'no-such-heading' }), true);
  });
});
