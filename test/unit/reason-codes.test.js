// Skip and error reasons come from one frozen module: every reason the parsers give for bad input
// is one of its codes, so a dashboard or alert never names a reason no source gives.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseGorouterLine } from '../../collector/sources/router-logs/gorouter.js';
import { mapDocument } from '../../collector/sources/router-logs/documents.js';
import { routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { createOctetCountingFramer } from '../../collector/sources/syslog-drain/rfc5424.js';
import { routerRequestFromEnvelope } from '../../collector/sources/log-cache/envelopes.js';
import * as codes from '../../core/reason-codes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** @param {string} dir @returns {string[]} */
const jsFiles = (dir) =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));

/** A reason given as a string literal: `reason: 'x'`, `reason ?? 'x'`, `warn('x', ...)` (not a logger's). */
const REASON_LITERALS = [
  /\breason\s*[:=]\s*'([^']*)'/g,
  /\breason\b[^\n;]*\?\?\s*'([^']*)'/g,
  /(?<!log\.)\bwarn\??\.?\(\s*'([^']*)'/g,
];

/**
 * The reason literals of one source file, comments aside; any literal spelling a known code counts too.
 * @param {string} text @returns {string[]}
 */
function reasonLiterals(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = REASON_LITERALS.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1]));
  for (const match of code.matchAll(/(?<!kind: )'([a-z][a-z0-9]*(?:_[a-z0-9]+)*)'/g)) {
    // `error` is also an event's name; as a reason it is caught by the patterns above.
    if (codes.ALL_REASONS.has(match[1]) && match[1] !== codes.JOB.ERROR) found.push(match[1]);
  }
  return found;
}

const LINE =
  'app.example.com - [2025-09-18T05:32:10.722911143Z] "GET / HTTP/1.1" 200 0 323 "-" "curl" "10.0.0.1:1" ' +
  '"10.0.0.2:2" x_forwarded_for:"-" x_forwarded_proto:"https" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" ' +
  'response_time:0.025501 gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"0"';

describe('reason codes', () => {
  it('are frozen', () => {
    for (const [name, value] of Object.entries(codes)) {
      if (value instanceof Set) continue;
      assert.ok(Object.isFrozen(value), `${name} is frozen`);
    }
    assert.throws(() => {
      /** @type {any} */ (codes.LINE).NEW = 'new';
    });
  });

  it('name every reason the parsers give for bad input', () => {
    const reasons = new Set();
    const lines = [
      '',
      'hello',
      '2025-09-18T05:32:10.74+0000 [APP/PROC/WEB/0] OUT hi',
      '2025-09-18T05:32:10.74+0000 [RTR/1] OUT ',
      'app.example.com - [2025-09-18T05:32:10.7229',
      LINE.replace('2025-09-18T05:32:10.722911143Z', 'yesterday'),
      LINE.replace('" 200 ', '" abc '),
      LINE.replace(' 0 323 ', ' x y '),
      LINE.replace('response_time:0.025501', 'response_time:fast'),
      LINE.slice(0, LINE.indexOf('"10.0.0.1')),
    ];
    for (const line of lines) {
      const parsed = parseGorouterLine(line);
      if (!parsed.ok) reasons.add(parsed.reason);
    }
    for (const document of [null, {}, { message: 'hello' }, { '@message': 'hello' }]) {
      for (const format of /** @type {const} */ (['auto', 'raw', 'logsearch'])) {
        const mapped = mapDocument(document, { format, fields: /** @type {any} */ ({}), lineFields: ['message'] });
        if (!mapped.ok) reasons.add(mapped.reason);
      }
    }
    for (const message of [
      'hello',
      '<14>1 2025-09-18T05:32:10Z host app [APP/PROC/WEB/0] - [x] hi',
      '<14>1 - - - [RTR/0] - - ',
    ]) {
      const result = routerRequestFromSyslog(message, {});
      if (!result.ok) reasons.add(result.reason);
    }
    const framer = createOctetCountingFramer({ maxMessageBytes: 10 });
    for (const frame of framer.push(Buffer.from('garbage 99 <14>1 aaaaaaaaaaaaaaaaaaaaaaaa'))) {
      if (frame.kind === 'error') reasons.add(frame.reason);
    }
    for (const envelope of [{ tags: {} }, { log: { payload: '' }, tags: { source_type: 'APP' } }]) {
      const result = routerRequestFromEnvelope(/** @type {any} */ (envelope), {});
      if (!result.ok) reasons.add(result.reason);
    }
    assert.ok(reasons.size >= 10, [...reasons].join(', '));
    for (const reason of reasons) assert.ok(codes.ALL_REASONS.has(reason), `${reason} is in core/reason-codes.js`);
  });

  it('are imported, never spelled out, by the sources, the pipeline, the HTTP client and core', () => {
    const spelled = ['collector/sources', 'collector/pipeline', 'collector/net', 'core'].flatMap((dir) =>
      jsFiles(path.join(ROOT, dir))
        .filter((file) => path.relative(ROOT, file) !== path.join('core', 'reason-codes.js'))
        .flatMap((file) =>
          reasonLiterals(fs.readFileSync(file, 'utf8')).map((reason) => `${path.relative(ROOT, file)}: '${reason}'`),
        ),
    );
    assert.deepEqual(spelled, [], 'import these from core/reason-codes.js');
  });

  it('the scan finds a reason spelled out', () => {
    assert.deepEqual(reasonLiterals("return { ok: false, reason: 'new_reason' };\n// reason: 'in_a_comment'"), [
      'new_reason',
    ]);
    assert.deepEqual(reasonLiterals("ctx.warn('claims_unavailable', 'x');"), [
      'claims_unavailable',
      'claims_unavailable',
    ]);
    assert.deepEqual(reasonLiterals("if (bad) return 'short_row';"), ['short_row']);
    assert.deepEqual(reasonLiterals("log.warn('a message'); socket.on('error', log);"), []);
  });
});
