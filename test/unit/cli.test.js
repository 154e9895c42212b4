import assert from 'node:assert/strict';
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
