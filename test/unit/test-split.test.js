// `npm test` needs Node and `npm install` alone (the embedded PostgreSQL comes with it); a test that
// needs another real tool (Prometheus, promtool, VictoriaMetrics, OpenSearch, Chromium, a JDK, Maven,
// Go, Python, psql, openssl) lives in test/full/, which `npm run test:full` adds and CI runs. This
// fails on a test outside test/full/ that reaches such a tool, and on one inside that reaches none.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST = path.join(ROOT, 'test');
const FULL = path.join(TEST, 'full');

/** The modules that start a real tool, through which a test reaches it. */
const LAUNCHERS = [
  ...['prometheus', 'victoria-metrics', 'search-node', 'chromium', 'load-tools', 'certificate'].map((name) =>
    path.join(TEST, 'support', `${name}.js`),
  ),
  path.join(ROOT, 'sandbox', 'bulletin-board-java', 'launch.js'),
];
const TOOL = 'psql|promtool|prometheus|victoria-metrics|openssl|javac?|mvn|go|chromium|python3?|locust|hey|vegeta';
/** A tool run by name from a test itself (a child process, or paasmon's psql command). */
const RUNS_TOOL = new RegExp(
  `\\b(?:spawn|spawnSync|execFile|execFileSync|execSync|exec|runCli|startCli)\\(\\s*\\[?\\s*['"\`](?:[\\w./-]*/)?(?:${TOOL})['"\`]`,
);
/** A tool looked for where its package installs it. */
const TOOL_PATH = new RegExp(`['"\`]/usr/(?:local/)?bin/(?:${TOOL})['"\`][^\n]*existsSync`);
/** `paasmon demo` (through support/demo.js) starts Prometheus with --keep and the Java app with --impl java. */
const DEMO_TOOL = /'--keep'|'--impl',\s*'[^']*java/;
const DEMO = path.join(TEST, 'support', 'demo.js');
/** Imports, and modules a test starts by their URL. */
const SPECIFIER = /(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** @param {string} dir @returns {string[]} */
function testFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'support' || entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

/**
 * What makes `file` need a real tool: a launcher it imports (directly or through the support
 * modules it imports), or a tool it runs itself. Empty when it needs Node and PostgreSQL alone.
 * @param {string} file @param {Set<string>} [seen] @returns {string[]}
 */
function needs(file, seen = new Set()) {
  if (seen.has(file) || !fs.existsSync(file)) return [];
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  /** @type {string[]} */
  const found = [RUNS_TOOL, TOOL_PATH].flatMap((re) => re.exec(text)?.[0] ?? []);
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    const target = path.resolve(path.dirname(file), specifier);
    if (target === DEMO) found.push(...(DEMO_TOOL.exec(text) ?? []));
    if (LAUNCHERS.includes(target)) found.push(path.relative(ROOT, target));
    else if (target.startsWith(path.join(TEST, 'support') + path.sep)) found.push(...needs(target, seen));
  }
  return found;
}

describe('test split: npm test needs Node alone, npm run test:full the real tools', () => {
  const files = testFiles(TEST);
  const full = files.filter((file) => file.startsWith(FULL + path.sep));

  it('finds the launchers and the tests on both sides', () => {
    for (const launcher of LAUNCHERS) assert.ok(fs.existsSync(launcher), launcher);
    assert.ok(full.length >= 10, `${full.length} tests in test/full/`);
    assert.ok(files.length - full.length >= 50, `${files.length - full.length} tests outside test/full/`);
  });

  it('keeps every test that needs a real tool in test/full/', () => {
    const misplaced = files
      .filter((file) => !full.includes(file))
      .flatMap((file) => needs(file).map((why) => `${path.relative(ROOT, file)}: ${why} (move it to test/full/)`));
    assert.deepEqual(misplaced, []);
  });

  it('keeps in test/full/ only tests that need one', () => {
    const idle = full.filter((file) => needs(file).length === 0).map((file) => path.relative(ROOT, file));
    assert.deepEqual(idle, []);
  });
});
