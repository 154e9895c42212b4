import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createProgram } from '../../collector/cli.js';

/** @param {string[]} args @param {Record<string, string>} env */
async function run(args, env) {
  /** @type {string[]} */
  const out = [];
  /** @type {string[]} */
  const err = [];
  let code = -1;
  const program = createProgram({ env, out: (l) => out.push(l), err: (l) => err.push(l) }, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(['node', 'paasmon', ...args]);
  } catch (e) {
    code = /** @type {any} */ (e).exitCode === 0 ? 0 : 2;
  }
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cli', () => {
  it('exits 2 and names the variable on invalid configuration', async () => {
    const result = await run(['poll'], { CF_API: 'not a url', CF_USERNAME: 'u', CF_PASSWORD: 'p', CF_APPS: 'a' });
    assert.equal(result.code, 2);
    assert.match(result.err, /^paasmon: invalid configuration: CF_API must be an http:\/\/ or https:\/\/ URL/);
  });

  it('exits 2 when a required variable is missing', async () => {
    const result = await run(['poll'], { CF_USERNAME: 'u', CF_PASSWORD: 'p', CF_APPS: 'a' });
    assert.equal(result.code, 2);
    assert.match(result.err, /CF_API is required/);
  });

  it('exits 2 on an unknown command', async () => {
    const result = await run(['pol'], {});
    assert.equal(result.code, 2);
    assert.match(result.err, /unknown command 'pol'/);
  });

  it('lists every command in --help, and every subcommand of run', async () => {
    const program = createProgram({ env: {}, out: () => {}, err: () => {} }, () => {});
    const verbs = program.commands.map((c) => c.name());
    assert.ok(verbs.length >= 8, `the command tree is built (${verbs.join(', ')})`);
    const result = await run(['--help'], {});
    assert.equal(result.code, 0);
    for (const verb of ['collect', 'poll', 'ingest', 'run', 'loadgen', 'worker', 'correlate', 'migrate', ...verbs]) {
      assert.match(result.out, new RegExp(`\\n  ${verb}\\b`), verb);
    }
    const runHelp = /** @type {any} */ (program.commands.find((c) => c.name() === 'run')).helpInformation();
    for (const sub of ['start', 'stop', 'list']) assert.match(runHelp, new RegExp(`\\n  ${sub}\\b`), sub);
  });

  it('passes positional arguments after the options (run stop ID)', async () => {
    const result = await run(['run', 'stop', 'x'], {});
    assert.equal(result.code, 2);
    assert.match(result.err, /ID must be a whole number of at least 1, got "x"/);
  });
});

describe('drain setup', () => {
  const token = 'a-drain-token/with+32-characters';

  it('prints the cf commands of an https-batch:// drain with $DRAIN_TOKEN in place of the token', async () => {
    const result = await run(
      ['drain', 'setup', '--app', 'shop', '--app', 'cart api', '--url', 'paasmon.apps.example.com/'],
      { DRAIN_TOKEN: token },
    );
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(
      result.out.split('\n').filter((l) => !l.startsWith('#')),
      [
        'cf create-user-provided-service paasmon-drain -l "https-batch://paasmon.apps.example.com/drain?token=$DRAIN_TOKEN"',
        'cf bind-service shop paasmon-drain',
        'cf bind-service "cart api" paasmon-drain',
      ],
    );
    assert.match(result.out, /^# https-batch:\/\/ .* loggregator-agent-release v8\.3\.0 or newer .* --no-batch/m);
    assert.ok(!result.out.includes(token));
  });

  it('takes the route from VCAP_APPLICATION, and writes https:// with --no-batch', async () => {
    const vcap = JSON.stringify({ application_uris: ['paasmon.apps.example.com'] });
    const env = { DRAIN_TOKEN: token, VCAP_APPLICATION: vcap };
    const batch = await run(['drain', 'setup', '--app', 'shop'], env);
    assert.match(
      batch.out,
      /^cf create-user-provided-service paasmon-drain -l "https-batch:\/\/paasmon\.apps\.example\.com\/drain\?token=\$DRAIN_TOKEN"$/m,
    );
    const single = await run(['drain', 'setup', '--app', 'shop', '--no-batch'], env);
    assert.match(
      single.out,
      /^cf create-user-provided-service paasmon-drain -l "https:\/\/paasmon\.apps\.example\.com\/drain\?token=\$DRAIN_TOKEN"$/m,
    );
  });

  it('--tcp writes syslog:// for a plain TCP listener and syslog-tls:// only with DRAIN_TLS_CERT', async () => {
    const args = ['drain', 'setup', '--app', 'shop', '--tcp', 'tcp.example.com:1025', '--service', 'lab-drain'];
    const plain = await run(args, { DRAIN_TCP_PORT: '8081' });
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, /^cf create-user-provided-service lab-drain -l syslog:\/\/tcp\.example\.com:1025$/m);
    assert.doesNotMatch(plain.out, /-l syslog-tls/);
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const tlsEnv = { DRAIN_TCP_PORT: '8081', DRAIN_TLS_CERT: pem, DRAIN_TLS_KEY: 'key.pem' };
    const tls = await run(args, tlsEnv);
    assert.match(tls.out, /^cf create-user-provided-service lab-drain -l syslog-tls:\/\/tcp\.example\.com:1025$/m);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-drain-ca-'));
    try {
      const ca = path.join(dir, 'ca.crt');
      fs.writeFileSync(ca, pem);
      const withCa = await run([...args, '--ca', ca], tlsEnv);
      const line = withCa.out.split('\n').find((l) => l.startsWith('cf create-user-provided-service'));
      const json = /** @type {string} */ (line).split(" -p '")[1].slice(0, -1);
      assert.deepEqual(JSON.parse(json), { ca: pem.trim() });
      const noTls = await run([...args, '--ca', ca], { DRAIN_TCP_PORT: '8081' });
      assert.equal(noTls.code, 2);
      assert.match(noTls.err, /--ca needs DRAIN_TLS_CERT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 without a route, without DRAIN_TOKEN, or with an http:// route', async () => {
    assert.match((await run(['drain', 'setup', '--app', 'shop'], { DRAIN_TOKEN: token })).err, /--url is required/);
    assert.match(
      (await run(['drain', 'setup', '--app', 'shop', '--url', 'https://x.example.com'], {})).err,
      /DRAIN_TOKEN is required/,
    );
    const plain = await run(['drain', 'setup', '--app', 'shop', '--url', 'http://x.example.com'], {
      DRAIN_TOKEN: token,
    });
    assert.equal(plain.code, 2);
    assert.match(plain.err, /--url must be https:\/\//);
  });

  it('--apply runs cf with the real token and never prints it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-fake-cf-'));
    const pathBefore = process.env.PATH;
    // cf runs with the user's own environment (its login), so the stand-in goes on this process's PATH.
    process.env.PATH = `${dir}:${pathBefore}`;
    try {
      const calls = path.join(dir, 'calls');
      // A cf CLI stand-in that records its arguments and echoes them, as a careless version might.
      fs.writeFileSync(path.join(dir, 'cf'), `#!/bin/sh\nprintf '%s\\n' "$*" >> "${calls}"\necho "OK $*"\n`, {
        mode: 0o755,
      });
      const result = await run(['drain', 'setup', '--app', 'shop', '--url', 'https://paasmon.example.com', '--apply'], {
        DRAIN_TOKEN: token,
      });
      assert.equal(result.code, 0, result.out);
      assert.deepEqual(fs.readFileSync(calls, 'utf8').trim().split('\n'), [
        `create-user-provided-service paasmon-drain -l https-batch://paasmon.example.com/drain?token=${encodeURIComponent(token)}`,
        'bind-service shop paasmon-drain',
      ]);
      assert.ok(!result.out.includes(token) && !result.out.includes(encodeURIComponent(token)), result.out);
    } finally {
      process.env.PATH = pathBefore;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
