// The program: the root command, how a verb runs (config, logger, its module loaded on use, errors
// to exit codes: 0 success, 2 bad usage or invalid configuration, 1 other failure); the commands
// themselves are declared in command-tree.js.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadConfig, secretValues } from './config/index.js';
import { ConfigError } from '../core/errors.js';
import { createLogger } from '../core/log.js';
import { scrub } from '../core/secrets.js';
import { addCollectorCommands, addDatabaseCommands, addLoadCommands, addRunCommands } from './command-tree.js';
import { addAnalysisCommands } from './analysis-commands.js';

// CommonJS, so required: imported, its source would be parsed once more at every start for its export names.
const { Command, CommanderError } = /** @type {typeof import('commander')} */ (
  createRequire(import.meta.url)('commander')
);

export { CommanderError };

/** @typedef {import('commander').Command} Command */

/**
 * @typedef {object} CliDeps
 * @property {Record<string, string | undefined>} env
 * @property {(line: string) => void} out human output (stdout)
 * @property {(line: string) => void} err error messages (stderr)
 * @property {import('pino').DestinationStream} [logDestination]
 */

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/**
 * The one line a failure prints: the message (an AggregateError's first cause, a bare error
 * code), on one line. The stack only at LOG_LEVEL=debug or trace.
 * @param {unknown} err @param {string | undefined} logLevel
 */
export function describeError(err, logLevel) {
  const e = /** @type {any} */ (err);
  if (logLevel === 'debug' || logLevel === 'trace') return String(e?.stack ?? e);
  const first = e instanceof AggregateError && !e.message ? e.errors[0] : e;
  const text = first?.message || first?.code || String(first);
  return String(text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** A verb's module; an install without sandbox/ (the app pushed to Cloud Foundry) names what `demo` lacks. */
function commandModule(/** @type {string} */ module, /** @type {string} */ verb) {
  return import(`./commands/${module}.js`).catch((/** @type {any} */ err) => {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(`${verb} cannot run in this install (${err.message}): run it from a checkout of paasmon`);
  });
}

/**
 * Commands whose usage errors (unknown option, missing argument) are one line naming the command
 * and where its help is, exit 2, instead of commander's message followed by the whole help.
 */
class PaasmonCommand extends Command {
  /** @param {string} [name] */
  createCommand(name) {
    return new PaasmonCommand(name);
  }

  /** @param {string} message @param {{ code?: string, exitCode?: number }} [options] @returns {never} */
  error(message, options) {
    const names = [];
    for (let c = /** @type {Command | null} */ (/** @type {unknown} */ (this)); c; c = c.parent)
      names.unshift(c.name());
    const path = names.join(' ');
    const text = message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
    return super.error(`${path}: ${text} (see ${path} --help)`, { ...options, exitCode: 2 });
  }
}

/**
 * The command tree. Usage errors and help throw CommanderError (exitOverride) instead of exiting.
 * @param {CliDeps} deps
 * @param {(code: number) => void} setExitCode
 */
export function createProgram(deps, setExitCode) {
  const program = new PaasmonCommand();
  // Set before any subcommand is added: subcommands copy these settings when they are created.
  program.exitOverride().configureOutput({
    writeOut: (text) => deps.out(text.replace(/\n$/, '')),
    writeErr: (text) => deps.err(text.replace(/\n$/, '')),
  });
  const verb = verbsOf(deps, setExitCode);
  program
    .name('paasmon')
    .description(
      'Monitoring and metrics collection for load tests of apps on Cloud Foundry.\n' +
        'Configuration comes from environment variables (see docs/configuration.md).',
    )
    .version(VERSION, '-V, --version', 'print the version of paasmon')
    .enablePositionalOptions();

  addCollectorCommands(program, verb);
  addRunCommands(program, verb);
  addLoadCommands(program, verb);
  addAnalysisCommands(program, verb);
  addDatabaseCommands(program, verb);
  return program;
}

/**
 * @param {CliDeps} deps @param {(code: number) => void} setExitCode
 * @returns {import('./command-tree.js').Verb}
 */
function verbsOf(deps, setExitCode) {
  /**
   * The action of a verb: loads the config, makes the logger, imports the command's module only
   * now (so `paasmon --help` loads nothing heavy), runs its export, and maps errors to exit codes.
   * The export gets (config, { log, out }, options, ...arguments).
   * @param {string} module under ./commands/ @param {string} name the exported function
   */
  return (module, name) =>
    async (/** @type {any[]} */ ...args) => {
      const command = /** @type {Command} */ (args.at(-1));
      const positional = args.slice(0, -2);
      try {
        const config = loadConfig(deps.env);
        const log = createLogger({ level: config.logLevel, secrets: config.secrets, destination: deps.logDestination });
        const run = (await commandModule(module, command.name()))[name];
        const code = await run(config, { log, out: deps.out, err: deps.err }, command.opts(), ...positional);
        setExitCode(code ?? 0);
      } catch (err) {
        // A library's message may quote what it was given (a path, a URL): never a secret.
        const text = scrub(describeError(err, deps.env.LOG_LEVEL), secretValues(deps.env));
        if (err instanceof ConfigError) {
          deps.err(`paasmon: invalid configuration: ${text}`);
          setExitCode(2);
        } else {
          deps.err(`paasmon: ${text}`);
          setExitCode(1);
        }
      }
    };
}
