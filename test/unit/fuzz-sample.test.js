// A 10^4 sample of the parsers' fuzzing (the 10^6 run: npm run bench -- fuzz): valid lines and
// documents parse to the values they were generated from; nothing else crashes or yields nonsense.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FUZZ_CLASSES, parseLine, runFuzz } from '../support/fuzz-cases.js';

describe('parsers under fuzzing (fast-check)', () => {
  it('10,000 generated gorouter lines and search documents: 0 crashes, every valid one exact', () => {
    const seen = [];
    const { runs } = runFuzz(10_000, { onClass: (name, n) => seen.push([name, n]) });
    assert.equal(runs, 10_000);
    assert.deepEqual(
      seen.map(([name]) => name),
      FUZZ_CLASSES.map((c) => c.name),
    );
  });

  it('a line cut inside a trailing number is truncated, not a shortened number (found by fuzzing)', () => {
    const whole =
      'a.example.com - [2026-11-22T09:00:00.000000001Z] "GET / HTTP/1.1" 200 0 1099511627770 "-" "ua" ' +
      '"10.0.1.2:1" "10.0.32.6:2" vcap_request_id:"b8fb3d83-ae6a-43ca-5b91-591aadde8c06" response_time:0.025501 ' +
      'gorouter_time:0.000085 app_id:"1ec90566-397f-4238-a452-ad4d246f73e4" x_cf_routererror:"-"';
    assert.ok(parseLine(whole).ok);
    for (const cut of ['1099511', 'response_time:0.02', 'gorouter_time:0.0000']) {
      const line = whole.slice(0, whole.indexOf(cut) + cut.length);
      assert.deepEqual(parseLine(line), { ok: false, reason: 'truncated' }, line);
    }
  });
});
