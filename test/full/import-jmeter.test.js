// Apache JMeter 5.6.3 (jars from Maven) headless under run exec against the sandbox router, with
// the plan of loadgen/tools/jmeter-correlation.jmx, saving its JTL in each shape JMeter writes (CSV,
// tab-delimited, XML): the saved paasmon_id joins every sample with its router record; the counts
// are those of JMeter's own summary line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { runCli } from '../support/cli.js';
import { checkImported, runIdOf, startSandbox, toolFile } from '../support/load-tools.js';

const PLAN = fileURLToPath(new URL('../../loadgen/tools/jmeter-correlation.jmx', import.meta.url));

/** @type {Awaited<ReturnType<typeof startSandbox>>} */
let sandbox;
beforeEach(async () => {
  sandbox = await startSandbox();
});
afterEach(() => sandbox?.stop());

/** Each JTL shape: the properties that make JMeter save it, its start, its samples' times read independently. */
const SHAPES = [
  {
    shape: 'CSV',
    properties: [],
    head: /^timeStamp,elapsed,/,
    elapsed: (/** @type {Buffer} */ jtl) =>
      parse(jtl, { columns: true }).map((/** @type {any} */ r) => Number(r.elapsed)),
  },
  {
    shape: 'tab-delimited',
    properties: ['-Jjmeter.save.saveservice.default_delimiter=\\t'],
    head: /^timeStamp\telapsed\t/,
    elapsed: (/** @type {Buffer} */ jtl) =>
      parse(jtl, { columns: true, delimiter: '\t' }).map((/** @type {any} */ r) => Number(r.elapsed)),
  },
  {
    shape: 'XML',
    properties: ['-Jjmeter.save.saveservice.output_format=xml'],
    head: /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testResults /,
    elapsed: (/** @type {Buffer} */ jtl) =>
      [...jtl.toString().matchAll(/^<httpSample t="(\d+)"/gm)].map((match) => Number(match[1])),
  },
];

for (const { shape, properties, head, elapsed } of SHAPES) {
  it(`jmeter ${shape}: the stored samples are those of JMeter's summary, each matched with its router record`, async () => {
    const launcher = toolFile('jmeter-5.6.3/bin/ApacheJMeter.jar', 'JMeter');
    const { dir } = sandbox;
    const results = path.join(dir, 'results.jtl');
    const exec = await runCli(
      [
        'run',
        'exec',
        '--app',
        'shop',
        '--label',
        'jmeter',
        '--results',
        results,
        '--',
        'java',
        `-Djava.util.prefs.userRoot=${path.join(dir, 'prefs')}`,
        '-jar',
        launcher,
        '-n',
        '-t',
        PLAN,
        '-l',
        results,
        '-j',
        path.join(dir, 'jmeter.log'),
        '-Jsample_variables=paasmon_id',
        `-Jport=${sandbox.port}`,
        '-Jpath=/items',
        '-Jthreads=4',
        '-Jloops=150',
        ...properties,
      ],
      sandbox.env,
      { timeoutMs: 300_000 },
    );
    assert.equal(exec.code, 0, exec.stderr);
    const summary = /^summary =\s+(\d+) in .*Err:\s+(\d+)/m.exec(exec.stdout);
    assert.ok(summary, `JMeter's summary line in ${exec.stdout}`);
    const jtl = fs.readFileSync(results);
    assert.match(jtl.toString('utf8', 0, 200), head);
    const durationsMs = elapsed(jtl);
    await sandbox.ingestRouterLog();
    await checkImported(sandbox, runIdOf(exec.stdout), {
      requests: Number(summary[1]),
      errors: Number(summary[2]),
      durationsMs,
      ids: true,
      resolutionMs: 1,
    });
  });
}
