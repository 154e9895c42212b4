// Gatling 3.13.5 (Maven artifacts, Java DSL) under run exec against the sandbox router, with the
// simulation of loadgen/tools/GatlingCorrelation.java: its binary simulation.log joins every
// request with its router record (the id rides in the request's name); the counts are those of
// Gatling's own console summary; the percentiles those of the log decoded here on its own.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { checkImported, runIdOf, startSandbox, toolFile } from '../support/load-tools.js';

const SIMULATION = fileURLToPath(new URL('../../loadgen/tools/GatlingCorrelation.java', import.meta.url));

/**
 * The response times (end - start, ms) of the REQUEST records of a 3.13 binary log, read apart
 * from the importer: the layout as the reference notes give it.
 * @param {Buffer} log
 */
function requestTimes(log) {
  let at = 0;
  const int32 = () => ((at += 4), log.readInt32BE(at - 4));
  const string = () => {
    const n = int32();
    if (n > 0) at += n + 1;
  };
  const cached = () => {
    if (int32() > 0) string();
  };
  const times = [];
  while (at < log.length) {
    const type = log[at++];
    if (type === 0) {
      (string(), string(), (at += 8), string());
      for (let n = int32(); n > 0; n--) string();
      for (let n = int32(); n > 0; n--) at += int32();
    } else if (type === 1) {
      for (let n = int32(); n > 0; n--) cached();
      cached();
      const start = int32();
      times.push(int32() - start);
      at += 1;
      cached();
    } else if (type === 2) at += 9;
    else if (type === 3) {
      for (let n = int32(); n > 0; n--) cached();
      at += 13;
    } else if (type === 4) (cached(), (at += 4));
    else throw new Error(`record type ${type} at ${at - 1}`);
  }
  return times;
}

/** @type {Awaited<ReturnType<typeof startSandbox>>} */
let sandbox;
before(async () => {
  sandbox = await startSandbox();
});
after(() => sandbox?.stop());

it("gatling: the stored requests are those of Gatling's summary, each matched with its router record", async () => {
  const classpath = fs.readFileSync(toolFile('gatling-3.13.5.classpath', 'Gatling'), 'utf8').trim();
  const { dir } = sandbox;
  const [classes, conf, results] = ['classes', 'conf', 'results'].map((d) => path.join(dir, d));
  fs.mkdirSync(conf);
  fs.writeFileSync(path.join(conf, 'logback.xml'), '<configuration><root level="WARN"/></configuration>\n');
  fs.writeFileSync(path.join(conf, 'gatling.conf'), 'gatling.data.enableAnalytics = false\n');
  execFileSync('javac', ['-cp', classpath, '-d', classes, SIMULATION], { stdio: 'pipe' });
  const log = path.join(dir, 'simulation.log');
  const script =
    `java -Xmx512m --add-opens=java.base/java.lang=ALL-UNNAMED -Dport="$1" -Dpath=/items -Dusers=4 -Drepeat=60 ` +
    `-cp "$2" io.gatling.app.Gatling --simulation GatlingCorrelation --results-folder "$3" --no-reports && ` +
    `cp "$3"/*/simulation.log "$4"`;
  const exec = await runCli(
    [
      'run',
      'exec',
      '--app',
      'shop',
      '--label',
      'gatling',
      '--results',
      log,
      '--',
      'sh',
      '-c',
      script,
      'gatling',
      String(sandbox.port),
      `${conf}:${classes}:${classpath}`,
      results,
      log,
    ],
    sandbox.env,
    { timeoutMs: 300_000 },
  );
  assert.equal(exec.code, 0, exec.stderr);
  const globals = [...exec.stdout.matchAll(/^> Global\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)/gm)];
  assert.ok(globals.length, `Gatling's summary in ${exec.stdout.slice(-2000)}`);
  const [, total, , ko] = globals.at(-1) ?? [];
  await sandbox.ingestRouterLog();
  await checkImported(sandbox, runIdOf(exec.stdout), {
    requests: Number(total),
    errors: Number(ko),
    durationsMs: requestTimes(fs.readFileSync(log)),
    ids: true,
    resolutionMs: 1,
  });
});
