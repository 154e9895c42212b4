// The gorouter line is read from a reused typed-array copy of its UTF-16 units (line-fields.js
// unitsOf): nothing of a longer line read before may leak into a shorter one, a line longer than
// the copy grows it, and characters beyond Latin-1 keep their places.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';
import { readHead, scanWanted, wantedKeys } from '../../collector/sources/gorouter/line-scan.js';

const head = 'a.example.com - [2026-11-22T09:00:00.000000001Z] "GET /p HTTP/1.1" 200 0 12 "-" "ua" ';
const tail =
  'vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" response_time:0.025501 gorouter_time:0.000085 ' +
  'app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" app_index:"3" x_cf_routererror:"-"';
/** @param {string} path @param {string} userAgent */
const line = (path, userAgent) =>
  `a.example.com - [2026-11-22T09:00:00.000000001Z] "GET ${path} HTTP/1.1" 200 0 12 "-" "${userAgent}" ${tail}`;

describe('gorouter lines read from a reused copy of their units', () => {
  it('reads a line after a longer one as if alone: a key cut before its colon is no key', () => {
    const wanted = wantedKeys(['a', 'b']);
    assert.deepEqual(scanWanted('a:"1" b:"22222222"', wanted), ['1', '22222222']);
    // The longer text had `:` right after `b`: this one ends there.
    assert.deepEqual(scanWanted('a:"1" b', wanted), ['1', undefined]);
    assert.deepEqual(scanWanted('a:"1" b:"22222222"', wanted), ['1', '22222222']);
    assert.deepEqual(scanWanted('a:"1" b:', wanted), ['1', '']);
    // A head cut after the status: the longer line's ` 0 12 ` is not read.
    assert.deepEqual(readHead(head), {
      time: '2026-11-22T09:00:00.000000001Z',
      request: 'GET /p HTTP/1.1',
      status: '200',
      bytesReceived: '0',
      bytesSent: '12',
      end: head.indexOf('"-"'),
    });
    assert.equal(readHead(head.slice(0, head.indexOf(' 200') + 4)), 'truncated');
  });

  it('reads a line longer than any before it (a 100,000-character path), then a short one', () => {
    const path = `/${'x'.repeat(100_000)}`;
    const long = parseGorouterLine(line(path, 'ua'));
    assert.ok(long.ok);
    assert.equal(long.record.path, path);
    assert.equal(long.record.responseTimeMs, 25.501);
    assert.equal(long.record.appIndex, 3);
    const short = parseGorouterLine(line('/', 'ua'));
    assert.ok(short.ok);
    assert.equal(short.record.path, '/');
    assert.equal(short.record.appGuid, '1ec90566-397f-4238-a452-ad4d246f73e4');
  });

  it('keeps every value in place past characters beyond Latin-1 (astral, CJK, U+2028, U+0122)', () => {
    // U+0122 and U+015C share their low byte with `"` and `\`: only their whole unit may count.
    const path = '/😀/中文/\u2028/\u0122\u015c';
    const parsed = parseGorouterLine(line(path, 'Mozilla 中文 \u0122 😀'));
    assert.ok(parsed.ok);
    assert.equal(parsed.record.path, path);
    assert.equal(parsed.record.vcapRequestId, 'b8fb3d83-ae6a-43ca-5b91-591aadde8c06');
    assert.equal(parsed.record.gorouterTimeMs, 0.085);
    assert.equal(parsed.record.appIndex, 3);
  });
});
