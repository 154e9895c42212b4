// paasmon run exec: a load tool as a child inside a run. The run starts (or is joined) before the
// tool, the tool's results are imported when it ends, and the run ends then; the tool's exit code
// is the command's. Ctrl-C and SIGTERM go to the tool, which ends as it would on its own.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { ConfigError } from '../../core/errors.js';
import { checkFormat, describeImport, importFile, runTarget, skippedRatioFlag } from './import.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepRunFigures } from './figures.js';
import { setRunWindow, startRun } from '../../exporters/postgres/queries/runs.js';

/**
 * @typedef {import('./import.js').RunFlags & { results?: string, format?: string, maxSkippedRatio?: string }}
 *   ExecFlags
 */

/**
 * Runs the command with the terminal's stdio, forwarding SIGINT and SIGTERM.
 * @param {string[]} command @returns {Promise<number>} its exit code (128 + signal when killed)
 */
function runChild(command) {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
    /** @param {NodeJS.Signals} signal */
    const forward = (signal) => child.kill(signal);
    const signals = /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
    for (const signal of signals) process.on(signal, forward);
    const stop = () => signals.forEach((signal) => process.off(signal, forward));
    child.once('error', (err) => {
      stop();
      const code = /** @type {any} */ (err).code;
      reject(code === 'ENOENT' ? new ConfigError(`run exec: no such command: ${command[0]}`) : err);
    });
    child.once('exit', (code, signal) => {
      stop();
      resolve(code ?? 128 + (os.constants.signals[/** @type {NodeJS.Signals} */ (signal)] ?? 0));
    });
  });
}

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} ctx
 * @param {ExecFlags} flags @param {string[]} command
 */
export function runExecCommand(config, { log, out, err }, flags, command) {
  const target = runTarget(flags);
  checkFormat(flags.format);
  if (!command?.length) throw new ConfigError('run exec: give the command after --, e.g. -- hey -n 1000 URL');
  const maxRatio = skippedRatioFlag(flags.maxSkippedRatio, config.ingestMaxSkippedRatio);
  return withMigratedDatabase(config, log, async (pool) => {
    const runId = target.runId ?? (await startRun(pool, /** @type {any} */ (target.spec)));
    out(`run ${runId}: ${command.join(' ')}`);
    const launchedAtMs = Date.now();
    let endedAtMs = launchedAtMs;
    let code;
    try {
      code = await runChild(command);
      endedAtMs = Date.now();
      if (flags.results) {
        const done = await importFile(pool, {
          file: flags.results,
          format: flags.format,
          startedAtMs: launchedAtMs,
          maxRatio,
          target: { runId },
          window: false,
          log,
        });
        out(describeImport(done, flags.results));
        if (done.problem) {
          err(`paasmon: import: ${done.problem}`);
          if (code === 0) code = 1;
        }
      }
    } finally {
      // A run this command started spans the tool's life; a joined run is its owner's to end.
      if (target.spec) {
        await setRunWindow(pool, runId, new Date(launchedAtMs), new Date(endedAtMs));
        await keepRunFigures(pool, runId, log);
      }
    }
    return code;
  });
}
