// The import format list: every shape of it is told from its head, read into requests of its tool,
// and named in --help; unknown or ambiguous content is refused in one line.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { detectFormat, detectShape } from '../../collector/sources/load-results/detect.js';
import { FORMATS, IMPORT_FORMATS, recordIdsHint } from '../../collector/sources/load-results/formats.js';
import { readLoadResults } from '../../collector/sources/load-results/index.js';
import { runCli } from '../support/cli.js';
import { SAMPLES, readAll } from '../support/load-results.js';

const SIDE_INPUTS = { startedAtMs: Date.parse('2026-11-25T10:00:00Z') };

/** @param {string | Buffer} content @param {object} options */
const readWithInputs = (content, options) => readAll(content, { ...SIDE_INPUTS, ...options });

const shapes = IMPORT_FORMATS.flatMap((format) => format.shapes.map((shape) => ({ format, shape })));

describe('the import format list', () => {
  it('has a sample of every shape, and no sample of a shape it lacks', () => {
    assert.deepEqual(
      shapes.map(({ format, shape }) => `${format.name} ${shape.variant}`).sort(),
      Object.keys(SAMPLES).sort(),
    );
  });

  for (const { format, shape } of shapes) {
    const key = `${format.name} ${shape.variant}`;
    it(`${key}: told from its head alone, read whole, detected or given, into requests of ${format.tool}`, async () => {
      const sample = Buffer.from(SAMPLES[key]);
      const detected = detectShape(sample);
      assert.ok(!('problem' in detected), JSON.stringify(detected));
      assert.deepEqual([detected.format.name, detected.shape.variant], [format.name, shape.variant]);
      for (const options of [{}, { format: format.name }]) {
        const read = await readWithInputs(sample, options);
        assert.deepEqual([read.format, read.tool, read.variant], [format.name, format.tool, shape.variant]);
        assert.deepEqual([...read.skipped], []);
        assert.ok(read.records.length >= 1);
        for (const record of read.records) assert.equal(record.tool, format.tool);
      }
    });
  }

  it('names every format in --help and a hint to record ids for every tool', async () => {
    for (const command of [['import'], ['run', 'exec']]) {
      const help = await runCli([...command, '--help'], {});
      assert.equal(help.code, 0, help.stderr);
      const listed = /--format <f>\s+(?:format of --results: )?([a-z0-9, -]+?) \(detected/.exec(
        help.stdout.replace(/\s+/g, ' '),
      );
      assert.deepEqual(listed?.[1].split(', '), [...FORMATS], help.stdout);
    }
    for (const { tool } of IMPORT_FORMATS) assert.match(recordIdsHint(tool) ?? '', /loadgen/, tool);
    assert.equal(recordIdsHint('wrk'), undefined);
  });

  it('refuses unknown or ambiguous content, an empty file and an unknown --format in one line', async () => {
    for (const head of ['hello world\n', '<?xml version="1.0"?>\n<html>', '{"a":1}\n'])
      assert.match(
        /** @type {any} */ (detectFormat(Buffer.from(head))).problem,
        /^its first line .* is no known result format$/,
      );
    const both = '{"seq":0,"latency":1,"timestamp":"t","start_time":1,"response_time":2}\n';
    assert.match(/** @type {any} */ (detectFormat(Buffer.from(both))).problem, /fits locust and vegeta$/);
    await assert.rejects(readWithInputs('', {}), /the results are empty/);
    await assert.rejects(readWithInputs('x', { format: 'wrk' }), /--format must be one of k6-json, k6-csv, jmeter/);
    await assert.rejects(
      readLoadResults(Readable.from([Buffer.from(SAMPLES['hey csv'])]), {}),
      /hey's offsets are relative to its start: give --started-at/,
    );
  });

  it("takes the shape the head fits when --format is given, else the format's first", async () => {
    const tsv = await readWithInputs(SAMPLES['jmeter tab-delimited'], { format: 'jmeter' });
    assert.equal(tsv.variant, 'tab-delimited');
    const unknown = await readWithInputs('hello\n', { format: 'jmeter' }).catch((err) => err);
    assert.match(String(unknown), /JTL header lacks timeStamp/);
  });
});
