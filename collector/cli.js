#!/usr/bin/env -S node --max-semi-space-size=1 --max-old-space-size=128
// @ts-check
// The whole command tree. Exit codes: 0 success, 2 bad usage or invalid configuration, 1 other failure.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';
import { createLogger } from './log.js';

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
   * Loads the config, makes the logger and runs a command; maps errors to exit codes.
   * @param {(config: import('./config.js').Config, ctx: { log: import('pino').Logger, out: (line: string) => void }, options: any) => Promise<number | void>} run
   */
  const action = (run) => async (/** @type {any} */ options) => {
    try {
      const config = loadConfig(deps.env);
      const log = createLogger({ level: config.logLevel, secrets: config.secrets, destination: deps.logDestination });
      const code = await run(config, { log, out: deps.out }, options);
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
    .description('Monitoring and metrics collection for load tests of apps on Cloud Foundry.\nConfiguration comes from environment variables (see README).')
    .showHelpAfterError();

  program.command('collect')
    .description('long-running service: migrate, poll on POLL_SCHEDULE, serve /metrics and /healthz on $PORT')
    .action(action(async (config, ctx) => {
      const { collectCommand } = await import('./commands/collect.js');
      await collectCommand(config, ctx);
    }));

  program.command('poll')
    .description('one Cloud Controller poll now: writes the samples and prints a table of instances')
    .action(action(async (config, ctx) => {
      const { pollCommand } = await import('./commands/poll.js');
      return pollCommand(config, ctx);
    }));

  program.command('ingest')
    .description('router logs: the next increment after the checkpoint, a window (--from/--to) from Elasticsearch/OpenSearch, or gorouter lines from a file or stdin')
    .option('--from <time>', 'window start, ISO 8601 (2026-11-22T10:00:00Z) or now-15m')
    .option('--to <time>', 'window end (exclusive)')
    .option('--file <path>', 'gorouter lines or `cf logs APP --recent` output; - for stdin')
    .option('--app <name>', 'app name for the lines of --file (the lines themselves carry only the app guid)')
    .action(action(async (config, ctx, options) => {
      const { ingestCommand } = await import('./commands/ingest.js');
      return ingestCommand(config, ctx, options);
    }));

  program.command('migrate')
    .description('apply the SQL migrations in sql/migrations')
    .action(action(async (config, ctx) => {
      const { migrateCommand } = await import('./commands/migrate.js');
      await migrateCommand(config, ctx);
    }));

  return program;
}

/** @param {string[]} argv */
export async function main(argv) {
  let exitCode = 0;
  const program = createProgram(new Command(), {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }, (code) => { exitCode = code; });
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
