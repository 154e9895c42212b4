// Every command with every kind of bad input, run as the real binary: one clear line on stderr,
// exit 2 for usage and configuration, 1 otherwise, nothing on stdout, and never a stack trace
// (frames only at LOG_LEVEL=debug). Guards issue 11 item 4 and issue 12 bugs 3 and 4: usage
// errors exited 1 followed by the whole help, and failures were printed on stdout.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cfEnv, makeApps, startCfSimulator } from '../../sandbox/cf-simulator.js';
import { runCli } from '../support/cli.js';
import { startTestDatabase } from '../support/database.js';

const STACK_FRAME = /^\s+at /m;

/**
 * @typedef {object} Case
 * @property {string} name
 * @property {string[]} args
 * @property {Record<string, string>} [env]
 * @property {2 | 1} code
 * @property {RegExp} says what the one line must say
 */

/** @type {Case[]} */
const usage = [
  {
    name: 'unknown option',
    args: ['poll', '--bogus'],
    code: 2,
    says: /^paasmon poll: unknown option '--bogus' \(see paasmon poll --help\)$/,
  },
  {
    name: 'loadgen without --url',
    args: ['loadgen', '--requests', '5'],
    code: 2,
    says: /required option '--url <url>' not specified \(see paasmon loadgen --help\)/,
  },
  {
    name: 'run start without --app',
    args: ['run', 'start', '--label', 'x'],
    code: 2,
    says: /run start: required option '--app <name>'/,
  },
  { name: 'run stop without an id', args: ['run', 'stop'], code: 2, says: /run stop: missing required argument 'id'/ },
  { name: 'bare run', args: ['run'], code: 2, says: /^paasmon run: missing command: one of start, stop, list/ },
  { name: 'unknown subcommand', args: ['run', 'begin'], code: 2, says: /^paasmon run: unknown command 'begin'/ },
  { name: 'bare db', args: ['db'], code: 2, says: /^paasmon db: missing command: one of status, stop, url/ },
  { name: 'misspelt command', args: ['pol'], code: 2, says: /^paasmon: unknown command 'pol' \(Did you mean poll\?\)/ },
  {
    name: 'run stop with a word',
    args: ['run', 'stop', 'x'],
    code: 2,
    says: /ID must be a whole number of at least 1, got "x"/,
  },
  {
    name: 'loadgen without an end',
    args: ['loadgen', '--url', 'http://127.0.0.1:9'],
    code: 2,
    says: /--requests N or --duration D is required/,
  },
  {
    name: 'loadgen ftp url',
    args: ['loadgen', '--url', 'ftp://x', '--requests', '1'],
    code: 2,
    says: /--url must be an http/,
  },
  {
    name: 'loadgen zero requests',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--requests', '0'],
    code: 2,
    says: /--requests must be a whole number of at least 1/,
  },
  {
    name: 'loadgen bad duration',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--duration', 'soon'],
    code: 2,
    says: /--duration must be a duration/,
  },
  {
    name: 'loadgen --app with --run',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--requests', '1', '--run', '1', '--app', 'a'],
    code: 2,
    says: /--app and --label describe the run loadgen creates/,
  },
  {
    name: 'loadgen --ramp without --rate',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--duration', '5s', '--parallel', '2', '--ramp', '1s'],
    code: 2,
    says: /^paasmon: invalid configuration: --ramp raises the rate of --rate \(the open model\); add --rate R or leave --ramp out/,
  },
  {
    name: 'loadgen --ramp longer than --duration',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--duration', '5s', '--rate', '10', '--ramp', '6s'],
    code: 2,
    says: /--ramp 6s is longer than --duration \(which includes the ramp\)/,
  },
  { name: 'ingest --from alone', args: ['ingest', '--from', 'now-5m'], code: 2, says: /--from and --to go together/ },
  { name: 'ingest without a source', args: ['ingest'], code: 2, says: /SEARCH_URL is required/ },
  { name: 'correlate --run word', args: ['correlate', '--run', 'abc'], code: 2, says: /--run must be a whole number/ },
  {
    name: 'bad meta',
    args: ['run', 'start', '--label', 'x', '--app', 'a', '--meta', 'novalue'],
    code: 2,
    says: /--meta takes key=value/,
  },
];

/** @type {Case[]} */
const badEnv = [
  {
    name: 'CF_API not a URL',
    args: ['poll'],
    env: { CF_API: 'api.example.com', CF_USERNAME: 'u', CF_PASSWORD: 'p', CF_APPS: 'a' },
    code: 2,
    says: /invalid configuration: CF_API must be/,
  },
  { name: 'poll without CF_API', args: ['poll'], env: {}, code: 2, says: /invalid configuration: CF_API is required/ },
  {
    name: 'POLL_SCHEDULE',
    args: ['collect'],
    env: { POLL_SCHEDULE: 'every 5s' },
    code: 2,
    says: /POLL_SCHEDULE must be a cron expression/,
  },
  {
    name: 'DATABASE_URL scheme',
    args: ['migrate'],
    env: { DATABASE_URL: 'mysql://db' },
    code: 2,
    says: /DATABASE_URL must be a postgres:\/\//,
  },
  {
    name: 'RUN_ID',
    args: ['loadgen', '--url', 'http://127.0.0.1:9', '--requests', '1'],
    env: { RUN_ID: 'latest' },
    code: 2,
    says: /RUN_ID/,
  },
  { name: 'LOG_LEVEL', args: ['migrate'], env: { LOG_LEVEL: 'loud' }, code: 2, says: /LOG_LEVEL/ },
  {
    name: 'a data dir that is a file',
    args: ['run', 'list'],
    env: { PAASMON_DATA_DIR: '/etc/hostname' },
    code: 2,
    says: /PAASMON_DATA_DIR \/etc\/hostname cannot be created/,
  },
  {
    name: 'a data dir below a file',
    args: ['run', 'list'],
    env: { PAASMON_DATA_DIR: '/etc/hostname/paasmon' },
    code: 2,
    says: /PAASMON_DATA_DIR .* cannot be created/,
  },
];

describe('no stack traces for users: every command, every kind of bad input', () => {
  /** @type {Awaited<ReturnType<typeof startTestDatabase>>} */
  let db;
  /** @type {Awaited<ReturnType<typeof startCfSimulator>>} */
  let sim;
  /** @type {net.Server} */
  let busy;
  let busyPort = 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-cli-errors-'));

  before(async () => {
    [db, sim] = await Promise.all([startTestDatabase(), startCfSimulator({ apps: makeApps(1, 1) })]);
    busy = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => busy.once('listening', resolve));
    busyPort = /** @type {net.AddressInfo} */ (busy.address()).port;
    fs.writeFileSync(path.join(tmp, 'not-a-log.bin'), Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256)));
  });
  after(async () => {
    busy?.close();
    await sim?.close();
    await db?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Services reachable and configured, unless a case overrides it. */
  const good = () => ({
    DATABASE_URL: db.url,
    ...cfEnv(sim),
    CF_TIMEOUT: '2s',
  });

  /** @returns {Case[]} cases that need the services above */
  const failures = () => [
    {
      name: 'unreachable DATABASE_URL',
      args: ['run', 'list'],
      env: { DATABASE_URL: 'postgres://u:p@127.0.0.1:9/db' },
      code: 1,
      says: /^paasmon: PostgreSQL at 127\.0\.0\.1:9 from DATABASE_URL: .*ECONNREFUSED/,
    },
    {
      name: 'refused database password',
      args: ['migrate'],
      env: { DATABASE_URL: db.url.replace('test-password', 'wrong') },
      code: 1,
      says: /^paasmon: PostgreSQL at 127\.0\.0\.1:\d+ from DATABASE_URL: password authentication failed/,
    },
    {
      name: 'unreachable Cloud Controller',
      args: ['poll'],
      env: { CF_API: 'http://127.0.0.1:9', CF_TIMEOUT: '1s' },
      code: 1,
      says: /^paasmon: poll failed: .*ECONNREFUSED/,
    },
    {
      name: 'refused CF credentials',
      args: ['poll'],
      env: { CF_PASSWORD: 'wrong' },
      code: 1,
      says: /^paasmon: poll failed: .*UAA refused the password grant/,
    },
    {
      name: 'run that does not exist (stop)',
      args: ['run', 'stop', '99999'],
      code: 1,
      says: /^paasmon: run 99999 does not exist or has already ended/,
    },
    {
      name: 'run that does not exist (correlate)',
      args: ['correlate', '--run', '99999'],
      code: 1,
      says: /^paasmon: run 99999 does not exist/,
    },
    {
      name: 'run that does not exist (loadgen)',
      args: ['loadgen', '--url', 'http://127.0.0.1:9', '--requests', '1', '--run', '99999'],
      code: 2,
      says: /run 99999 does not exist/,
    },
    {
      name: 'a port in use',
      args: ['loadgen', '--url', 'http://127.0.0.1:9', '--requests', '1', '--metrics-port', String(busyPort)],
      code: 1,
      says: /--metrics-port \d+ \(or \$PORT\) is in use by another process/,
    },
    {
      name: 'unreachable search',
      args: ['ingest'],
      env: { SEARCH_URL: 'http://127.0.0.1:9' },
      code: 1,
      says: /ECONNREFUSED/,
    },
    {
      name: 'a file that does not exist',
      args: ['ingest', '--file', path.join(tmp, 'missing.log'), '--app', 'a'],
      code: 1,
      says: /ENOENT|no such file/,
    },
  ];

  /** @param {Case} c */
  async function check(c) {
    const result = await runCli(c.args, { LOG_LEVEL: 'info', ...c.env }, { timeoutMs: 120_000 });
    const shown = `paasmon ${c.args.join(' ')}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
    assert.doesNotMatch(result.stdout + result.stderr, STACK_FRAME, shown);
    assert.equal(result.code, c.code, shown);
    assert.equal(result.stdout, '', `nothing on stdout for a failure\n${shown}`);
    // One line from paasmon itself; log lines (JSON, pino) may come before it.
    const lines = result.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('{'));
    assert.equal(lines.length, 1, shown);
    assert.match(lines[0], c.says, shown);
  }

  for (const c of [...usage, ...badEnv]) it(`${c.name}: exit ${c.code}, one line`, () => check(c));

  it('unreachable services, refused credentials, missing runs, a port in use: exit 1 or 2, one line', async () => {
    for (const c of failures()) await check({ ...c, env: { ...good(), ...c.env } });
  });

  it('a file that is not a log: no stack trace', async () => {
    const file = path.join(tmp, 'not-a-log.bin');
    const result = await runCli(['ingest', '--file', file, '--app', 'a'], good(), { timeoutMs: 60_000 });
    assert.doesNotMatch(result.stdout + result.stderr, STACK_FRAME, result.stderr);
    assert.notEqual(result.code, null);
  });

  it('shows the stack only at LOG_LEVEL=debug', async () => {
    const args = ['run', 'list'];
    const env = { DATABASE_URL: 'postgres://u:p@127.0.0.1:9/db' };
    const debug = await runCli(args, { ...env, LOG_LEVEL: 'debug' });
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, STACK_FRAME, 'the frames are there for a developer who asks');
  });
});
