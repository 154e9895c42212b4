#!/usr/bin/env -S node --max-semi-space-size=1 --max-old-space-size=128
// @ts-check
// The whole command tree. Exit codes: 0 success, 2 bad usage or invalid configuration, 1 other failure.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { loadConfig } from './config/index.js';
import { ConfigError } from '../core/errors.js';
import { createLogger } from '../core/log.js';

/**
 * @typedef {object} CliDeps
 * @property {Record<string, string | undefined>} env
 * @property {(line: string) => void} out human output (stdout)
 * @property {(line: string) => void} err error messages (stderr)
 * @property {import('pino').DestinationStream} [logDestination]
 */

/**
 * @param {Command} program
 * @param {CliDeps} deps
 * @param {(code: number) => void} setExitCode
 */
export function createProgram(program, deps, setExitCode) {
  /**
   * The action of a verb: loads the config, makes the logger, imports the command's module only
   * now (so `paasmon --help` loads nothing heavy), runs its export, and maps errors to exit codes.
   * The export gets (config, { log, out }, options, ...arguments).
   * @param {string} module under ./commands/ @param {string} name the exported function
   */
  const verb =
    (module, name) =>
    async (/** @type {any[]} */ ...args) => {
      const command = /** @type {Command} */ (args.at(-1));
      const positional = args.slice(0, -2);
      try {
        const config = loadConfig(deps.env);
        const log = createLogger({ level: config.logLevel, secrets: config.secrets, destination: deps.logDestination });
        const run = (await import(`./commands/${module}.js`))[name];
        const code = await run(config, { log, out: deps.out }, command.opts(), ...positional);
        setExitCode(code ?? 0);
      } catch (err) {
        if (err instanceof ConfigError) {
          deps.err(`paasmon: invalid configuration: ${err.message}`);
          setExitCode(2);
        } else {
          deps.err(`paasmon: ${/** @type {Error} */ (err).message}`);
          setExitCode(1);
        }
      }
    };

  program
    .name('paasmon')
    .description(
      'Monitoring and metrics collection for load tests of apps on Cloud Foundry.\n' +
        'Configuration comes from environment variables (see README).',
    )
    .showHelpAfterError();

  program
    .command('collect')
    .description('long-running service: migrate, poll on POLL_SCHEDULE, serve /metrics and /healthz on $PORT')
    .action(verb('collect', 'collectCommand'));

  program
    .command('poll')
    .description('one Cloud Controller poll now: writes the samples and prints a table of instances')
    .action(verb('poll', 'pollCommand'));

  program
    .command('ingest')
    .description(
      'router logs: the next increment after the checkpoint, a window (--from/--to) from ' +
        'Elasticsearch/OpenSearch, or gorouter lines from a file or stdin',
    )
    .option('--from <time>', 'window start, ISO 8601 (2026-11-22T10:00:00Z) or now-15m')
    .option('--to <time>', 'window end (exclusive)')
    .option('--file <path>', 'gorouter lines or `cf logs APP --recent` output; - for stdin')
    .option('--app <name>', 'app name for the lines of --file (the lines themselves carry only the app guid)')
    .action(verb('ingest', 'ingestCommand'));

  const run = program.command('run').description('test runs: what every comparison groups by');
  run
    .command('start')
    .description('register a test run; prints its id')
    .requiredOption('--label <label>', 'what this run is, e.g. "java 2 instances"')
    .requiredOption('--app <name>', 'the app under test (its CPU and memory join the run)')
    .option('--instances <n>', 'app instances')
    .option('--parallel <p>', 'parallel requests of the load')
    .option('--round <r>', 'round number, for repeated runs of one setting')
    .option('--impl <name>', 'implementation, e.g. java or nodejs')
    .option('--cores-per-instance <c>', 'CPU cores one instance may use (for CPU capacity)')
    .option('--meta <k=v...>', 'more parameters, stored in test_runs.meta')
    .action(verb('run', 'runStartCommand'));
  run.command('stop <id>').description('end a test run').action(verb('run', 'runStopCommand'));
  run.command('list').description('list test runs').action(verb('run', 'runListCommand'));

  program
    .command('loadgen')
    .description('generate load and record every request (closed model with --parallel, open model with --rate)')
    .requiredOption('--url <url>', 'target URL')
    .option('--requests <n>', 'stop after n requests')
    .option('--duration <d>', 'stop after this long, e.g. 60s')
    .option('--parallel <p>', 'closed model: requests always in flight (1)')
    .option('--rate <r>', 'open model: requests per second on a fixed schedule; latency from the scheduled time')
    .option('--run <id>', 'test run to record into (or RUN_ID); a new run when absent')
    .option('--method <m>', 'HTTP method (GET)')
    .option('-H, --header <h...>', 'extra header "Name: value"')
    .option('--body <text>', 'request body')
    .option('--timeout <d>', 'per-request timeout (10s)')
    .option('--connections <c>', 'at most c keep-alive connections, opened as needed (--parallel; --rate: 100)')
    .option('--start-at <time>', 'wait until this time (ISO 8601), so several workers start together')
    .option('--worker <name>', 'worker name (default: instance-$CF_INSTANCE_INDEX, or host-pid)')
    .option('--max-error-ratio <x>', 'exit 1 when the error ratio is above x')
    .option('--max-p95 <ms>', 'exit 1 when p95 is above this many ms')
    .option('--metrics-port <port>', 'serve /metrics while running (default: $PORT when set)')
    .action(verb('loadgen', 'loadgenCommand'));

  program
    .command('worker')
    .description(
      'load-generator worker: idles until a run with --meta url=... is started, drives it, waits for the next',
    )
    .option('--worker <name>', 'worker name (default: instance-$CF_INSTANCE_INDEX, or host-pid)')
    .action(verb('worker', 'workerCommand'));

  program
    .command('correlate')
    .description('count load-generator records matched with router records, per run')
    .option('--run <id>', 'one run only')
    .action(verb('correlate', 'correlateCommand'));

  program
    .command('migrate')
    .description('apply the SQL migrations in sql/migrations')
    .action(verb('migrate', 'migrateCommand'));

  return program;
}

/** @param {string[]} argv */
export async function main(argv) {
  let exitCode = 0;
  const program = createProgram(
    new Command(),
    {
      env: process.env,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    },
    (code) => {
      exitCode = code;
    },
  );
  program.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
  return exitCode;
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  process.on('unhandledRejection', (err) => {
    process.stderr.write(`paasmon: unexpected error: ${/** @type {Error} */ (err)?.stack ?? err}\n`);
    process.exit(1);
  });
  const code = await main(process.argv);
  // Let stdout drain, then exit: a pool or keep-alive socket left open must not keep us alive.
  process.stdout.write('', () => process.exit(code));
}
