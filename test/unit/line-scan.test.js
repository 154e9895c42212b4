// The one-pass readers of a gorouter line against the regular expressions they replace, on
// generated text made of the characters that matter to them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  endsInDuration,
  isDigits,
  isSpace,
  keyColon,
  mayHavePrefix,
  readHead,
  scanFields,
  scanWanted,
  wantedKeys,
} from '../../collector/sources/gorouter/line-scan.js';

const HEAD = /^(\S+) - \[([^\]]*)\] "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+)(?: |$)/;
const CF_LOGS_PREFIX = /^\s*(\S+)\s+\[([A-Za-z]+)(?:\/[^\]]*)?\]\s+(?:OUT|ERR)(?:\s|$)/;
const CUT_AFTER_NUMBER = /(?:^| )(?:response_time|gorouter_time):[^ "]*$/;
const KEY = /[A-Za-z_][A-Za-z0-9_-]{0,78}:/y;

const PIECES = [
  ' ',
  ' ',
  '\t',
  '\n',
  '\u00a0',
  '\u2028',
  '"',
  '\\',
  '[',
  ']',
  '-',
  ':',
  '.',
  '/',
  'a',
  'Z',
  '_',
  '0',
  '7',
];
const WORDS = ['host', ' - [', '] "', '" ', 'GET / HTTP/1.1', '200', 'response_time:', 'gorouter_time:', 'x_b3:'];
/** Text of the characters and words the readers look at. */
const textArb = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...WORDS)), { maxLength: 40 })
  .map((parts) => parts.join(''));
const LINE = 'a.example.com - [2026-11-22T09:00:00.000000001Z] "GET /a b HTTP/1.1" 200 0 12 "-" "ua" x:"1"';
/** A real line with a piece cut out and generated text put in. */
const lineArb = fc
  .tuple(fc.nat(LINE.length), fc.nat(LINE.length), textArb)
  .map(([a, b, text]) => LINE.slice(0, Math.min(a, b)) + text + LINE.slice(Math.max(a, b)));

describe('line-scan: one pass, the same as the regular expressions', () => {
  it('readHead reads the head HEAD matched, and says not_gorouter where `host - [` is missing', () => {
    fc.assert(
      fc.property(fc.oneof(lineArb, textArb), (raw) => {
        const text = raw.trim();
        const match = HEAD.exec(text);
        const head = readHead(text);
        if (!match) {
          assert.equal(head, /^\S+ - \[/.test(text) ? 'truncated' : 'not_gorouter');
          return;
        }
        assert.deepEqual(head, {
          time: match[2],
          request: match[3],
          status: match[4],
          bytesReceived: match[5],
          bytesSent: match[6],
          end: match[0].length,
        });
      }),
      { numRuns: 20_000 },
    );
  });

  it('mayHavePrefix is true wherever the `cf logs` prefix matches', () => {
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        const text = `${a}2026-11-22T09:00:00Z [RTR/1] OUT ${b}`;
        for (const t of [text, a, b]) if (CF_LOGS_PREFIX.test(t)) assert.ok(mayHavePrefix(t), t);
      }),
      { numRuns: 5000 },
    );
    assert.equal(mayHavePrefix(LINE), false);
  });

  it('endsInDuration, keyColon, isDigits and isSpace agree with the expressions they replace', () => {
    fc.assert(
      fc.property(fc.oneof(lineArb, textArb), fc.nat(50), (text, at) => {
        assert.equal(endsInDuration(text), CUT_AFTER_NUMBER.test(text), text);
        KEY.lastIndex = at;
        const key = at <= text.length ? KEY.exec(text) : null;
        assert.equal(keyColon(text, at), key ? at + key[0].length - 1 : -1, text);
        assert.equal(isDigits(text), /^\d{1,15}$/.test(text));
      }),
      { numRuns: 20_000 },
    );
    assert.equal(keyColon(`${'k'.repeat(79)}:`, 0), 79);
    assert.equal(keyColon(`${'k'.repeat(80)}:`, 0), -1);
    for (let c = 0; c <= 0xffff; c++)
      assert.equal(isSpace(c), /\s/.test(String.fromCharCode(c)), `U+${c.toString(16)}`);
  });

  it('scanWanted keeps what scanFields keeps of the wanted keys (upper case, repeated, escaped, cut off)', () => {
    const keyArb = fc.constantFrom('app_id', 'App_Id', 'APP_ID', 'b3', 'x_b3', 'X_B3', 'x-id', 'other', 'app_ids');
    const valueArb = fc.oneof(
      fc.constantFrom('"a"', '"a\\"b"', '"\\\\"', '"open', 'bare', '"-"', '""', '"x y"'),
      textArb,
    );
    const tailArb = fc
      .array(
        fc.oneof(
          fc.tuple(keyArb, valueArb).map(([k, v]) => `${k}:${v}`),
          valueArb,
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(' '));
    const names = ['app_id', 'x_b3', 'b3', 'x-id', 'app_id'];
    const wanted = wantedKeys(names);
    fc.assert(
      fc.property(tailArb, (tail) => {
        const { fields } = scanFields(tail, new Set(names));
        const values = scanWanted(tail, wanted);
        for (const name of new Set(names)) assert.equal(values[wanted.slotOf.get(name) ?? -1], fields.get(name), tail);
        // Scanned where it stands in a longer line: the same.
        assert.deepEqual(scanWanted(`b3:"x\\"" ${tail}`, wanted, 8), values, tail);
      }),
      { numRuns: 20_000 },
    );
    assert.deepEqual(scanWanted('APP_ID:"A" x_b3:"t\\"u" b3:"open', wanted), [
      'A',
      't"u',
      undefined,
      undefined,
      undefined,
    ]);
  });
});
