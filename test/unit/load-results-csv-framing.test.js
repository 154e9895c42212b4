// How CSV results are framed where a file is not clean CSV: a quote left open early in a big file, a
// quote inside an unquoted field; each is one `csv_framing` skip at its line and the rest is read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAll } from '../support/load-results.js';

const HEADER = 'timeStamp,elapsed,label,responseCode,responseMessage,success,failureMessage,URL';
const START = Date.parse('2026-11-25T14:51:58Z');
const row = (/** @type {number} */ i, url = `http://h/${i}`) => `${START + i},${i % 40},GET /${i},200,OK,true,,${url}`;

describe('CSV framing', () => {
  it('skips a quote left open on line 2 of a big file as one line and reads the 200,000 after it', async () => {
    const lines = [HEADER, `${START},3,"GET /open,200,OK,true,,http://h/`];
    for (let i = 1; i <= 200_000; i++) lines.push(row(i));
    const began = performance.now();
    const read = await readAll(lines.join('\n'));
    const seconds = (performance.now() - began) / 1000;
    assert.equal(read.records.length, 200_000);
    assert.equal(read.records[0].url, 'http://h/1');
    assert.equal(read.records.at(-1).url, 'http://h/200000');
    assert.deepEqual([...read.skipped], [['csv_framing', 1]]);
    assert.match(read.examples.get('csv_framing'), /^line 2: a quote is left open/);
    // Re-reading the open record's growing remainder each chunk would take minutes here.
    assert.ok(seconds < 30, `took ${seconds} s`);
  });

  it('skips a row with a quote inside an unquoted field, at its line, in chunks of 5 bytes', async () => {
    const lines = [
      HEADER,
      row(1, '"http://h/two\nlines"'),
      row(2, 'http://h/a"b'),
      row(3, '"http://h/""hi"""'),
      row(4, 'http://h/"c"'),
      row(5),
    ];
    for (const chunk of [5, 1 << 16]) {
      const read = await readAll(`\uFEFF${lines.join('\r\n')}\r\n`, {}, chunk);
      assert.deepEqual(
        read.records.map((r) => r.url),
        ['http://h/two\nlines', 'http://h/"hi"', 'http://h/5'],
      );
      assert.deepEqual([...read.skipped], [['csv_framing', 2]]);
      // The quoted label of line 2 ends on line 3: the stray quote is on line 4.
      assert.match(read.examples.get('csv_framing'), /^line 4: a quote inside an unquoted field: .*http:\/\/h\/a"b/);
    }
  });
});
