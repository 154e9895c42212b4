// Security checks at source level: every SQL statement takes user values as parameters (never by
// string building), TLS verification is on unless a user turns it off, and secrets stay out of
// process titles.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PRODUCT = ['collector', 'exporters', 'loadgen', 'core'];
const SQL = /\b(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|COPY|TRUNCATE|GRANT)\b/;
/**
 * What may be interpolated into SQL text: table and column names from the fixed table specs
 * (exporters/postgres/rows/tables.js) and the COPY format clause of copy.js, never a value that came from outside.
 */
const IDENTIFIERS_ONLY = new Set([
  'staging',
  'spec.table',
  'columns',
  'column',
  'returning',
  'sameKey',
  "spec.key.join(', ')",
  'columnList(spec)',
  'formatClause',
]);

/** @param {string} dir @returns {string[]} */
const jsFiles = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? jsFiles(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
    );

/**
 * SQL built from strings with something that is not a known identifier: `${value}` in a template
 * holding SQL, or "..." + value.
 * @param {string} file @param {string} text @returns {string[]}
 */
export function stringBuiltSql(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  /** @type {string[]} */
  const found = [];
  const where = (/** @type {ts.Node} */ node) =>
    `${path.relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isTemplateExpression(node)) {
      const literal = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
      if (SQL.test(literal))
        for (const span of node.templateSpans) {
          const expression = span.expression.getText(source);
          if (!IDENTIFIERS_ONLY.has(expression)) found.push(`${where(node)}: \${${expression}} in SQL`);
        }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const sides = [node.left, node.right];
      if (sides.some((s) => ts.isStringLiteralLike(s) && SQL.test(s.text)))
        found.push(`${where(node)}: SQL joined with +`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('security (source level)', () => {
  it('no SQL statement is string-built with a value: user values go in as $n parameters', () => {
    const files = PRODUCT.flatMap((d) => jsFiles(path.join(ROOT, d)));
    assert.ok(files.length > 30, `product files found (${files.length})`);
    const found = files.flatMap((f) => stringBuiltSql(f, fs.readFileSync(f, 'utf8')));
    assert.deepEqual(found, []);
    // The check itself catches what it is for.
    const bad = [
      "pool.query(`SELECT * FROM test_runs WHERE label = '${label}'`);",
      "pool.query('DELETE FROM test_runs WHERE id = ' + id);",
    ];
    for (const code of bad) assert.equal(stringBuiltSql(path.join(ROOT, 'x.js'), code).length, 1, code);
  });

  it('TLS verification is never turned off in code, only by the documented *_SKIP_SSL_VALIDATION setting', () => {
    const files = PRODUCT.flatMap((d) => jsFiles(path.join(ROOT, d)));
    /** @type {string[]} */
    const found = [];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      for (const [i, line] of text.split('\n').entries()) {
        if (/NODE_TLS_REJECT_UNAUTHORIZED|checkServerIdentity\s*:\s*\(\)/.test(line))
          found.push(`${path.relative(ROOT, file)}:${i + 1}`);
        // rejectUnauthorized may only be set from a skip-validation setting.
        if (
          /rejectUnauthorized\s*:/.test(line) &&
          !/rejectUnauthorized\s*:\s*!\s*[\w.]*[sS]kipSslValidation/.test(line)
        )
          found.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('no process title carries configuration', () => {
    const files = PRODUCT.flatMap((d) => jsFiles(path.join(ROOT, d)));
    const titles = files.filter((f) => /process\.title\s*=/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(
      titles.map((f) => path.relative(ROOT, f)),
      [],
    );
  });
});

describe('/metrics bearer token', () => {
  it('matches only the exact token (scheme case-insensitive), compared as fixed-length digests', async () => {
    const { bearerMatches } = await import('../../collector/metrics-server.js');
    const expected = Buffer.from('Bearer s3cret-token');
    assert.equal(bearerMatches('Bearer s3cret-token', expected), true);
    assert.equal(bearerMatches('bearer s3cret-token', expected), true);
    for (const wrong of [
      undefined,
      '',
      'Bearer s3cret-toke',
      'Bearer s3cret-token2',
      'Bearer S3CRET-TOKEN',
      's3cret-token',
    ])
      assert.equal(bearerMatches(wrong, expected), false, String(wrong));
    const source = fs.readFileSync(path.join(ROOT, 'collector/metrics-server.js'), 'utf8');
    assert.match(source, /timingSafeEqual\(digest\(given\), digest\(expected\)\)/, 'no early exit on length');
  });
});

describe('syslog drain token', () => {
  it('lets in only the exact ?token=, compared as fixed-length digests like the /metrics token', async () => {
    const { createDrainHandler } = await import('../../collector/sources/syslog-drain/http.js');
    const http = await import('node:http');
    const token = 'drain-token-0123456789';
    let unauthorized = 0;
    const receiver = /** @type {any} */ ({
      closed: false,
      room: 100,
      offer: () => 0,
      unauthorized: () => (unauthorized += 1),
    });
    const handler = createDrainHandler({ token, receiver, log: /** @type {any} */ ({ trace() {} }) });
    const server = http.createServer((req, res) => handler(req, res, new URL(req.url ?? '/', 'http://localhost')));
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
    try {
      /** @param {string} query */
      const post = async (query) => (await fetch(`${base}/drain${query}`, { method: 'POST', body: '' })).status;
      const wrong = [
        '',
        '?token=',
        `?token=${token.slice(0, -1)}`,
        `?token=${token}0`,
        `?token=${token.toUpperCase()}`,
      ];
      for (const query of wrong) assert.equal(await post(query), 401, query);
      assert.equal(unauthorized, wrong.length);
      assert.equal(await post(`?token=${token}`), 204);
    } finally {
      server.close();
      server.closeAllConnections();
    }
    const source = fs.readFileSync(path.join(ROOT, 'collector/sources/syslog-drain/http.js'), 'utf8');
    assert.match(
      source,
      /timingSafeEqual\(crypto\.createHash\('sha256'\)\.update\(given\)\.digest\(\), expectedDigest\)/,
    );
  });
});
