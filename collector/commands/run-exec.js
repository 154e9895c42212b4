// paasmon run exec: a load tool as a child inside a run. The run starts (or is joined) before the
// tool, the tool's results are imported when it ends, and the run ends then; the tool's exit code
// is the command's. Ctrl-C and SIGTERM go to the tool, which ends as it would on its own.
import { spawn } from 'node:child_process';
import os from 'node:os';
import { ConfigError } from '../../core/errors.js';
import { runTarget, skippedRatioFlag } from './run-flags.js';
import { ResultsFileError, checkFormat, describeImport, importFile } from '../use-cases/import-results.js';
import { durationFlag } from './flags.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { keepRunFigures } from '../run-figures.js';
import { discardRun, setRunWindow, startRun } from '../../exporters/postgres/queries/runs.js';

/**
 * @typedef {import('./run-flags.js').RunFlags & { results?: string, format?: string, maxSkippedRatio?: string,
 *   warmup?: string }} ExecFlags
 */

/**
 * Starts the command with the terminal's stdio, forwarding SIGINT and SIGTERM; rejects when it cannot
 * start (no such command, not executable).
 * @param {string[]} command @returns {Promise<{ exited: Promise<number> }>} its exit code (128 + signal when killed)
 */
function startChild(command) {
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
      const why = code === 'ENOENT' ? 'no such command' : code === 'EACCES' ? 'permission denied' : err.message;
      reject(new Error(`run exec: cannot start ${command[0]}: ${why}`, { cause: err }));
    });
    child.once('spawn', () => {
      const exited = new Promise((done) =>
        child.once('exit', (code, signal) => {
          stop();
          done(code ?? 128 + (os.constants.signals[/** @type {NodeJS.Signals} */ (signal)] ?? 0));
        }),
      );
      resolve({ exited: /** @type {Promise<number>} */ (exited) });
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
  const warmupMs = durationFlag(flags.warmup, '--warmup', { zero: true }) ?? 0;
  return withMigratedDatabase(config, log, async (pool) => {
    const runId = target.runId ?? (await startRun(pool, /** @type {any} */ (target.spec)));
    const launchedAtMs = Date.now();
    let child;
    try {
      child = await startChild(command);
    } catch (failure) {
      // No tool, no load: a run made for it would stay empty.
      if (target.spec) await discardRun(pool, runId);
      throw failure;
    }
    out(`run ${runId}: ${command.join(' ')}`);
    let endedAtMs = launchedAtMs;
    let code;
    try {
      code = await child.exited;
      endedAtMs = Date.now();
      if (flags.results) {
        const job = { file: flags.results, format: flags.format, startedAtMs: launchedAtMs, maxRatio, log };
        const from = launchedAtMs + warmupMs;
        const done = await importFile(pool, { ...job, target: { runId }, window: false, from }).catch((failure) => {
          // The tool ran: its own failure (a non-zero code) is still the command's.
          if (!(failure instanceof ResultsFileError)) throw failure;
          return { problem: failure.message, runId, format: '', result: undefined };
        });
        if (done.result) out(describeImport(done, flags.results));
        if (done.result && warmupMs > 0) out(warmupLine(done.result, flags.warmup, runId));
        if (done.result && warmupMs > 0 && done.result.records === 0) {
          err(`paasmon: run exec: every request came within --warmup ${flags.warmup}: run ${runId} holds none`);
          if (code === 0) code = 1;
        }
        if (done.problem) {
          err(`paasmon: import: ${done.problem}`);
          if (code === 0) code = 1;
        }
      }
    } finally {
      // A run this command started spans the tool's life; a joined run is its owner's to end.
      if (target.spec) {
        // With a warm-up, the run's window opens when it ends (the tool's requests before are in no run).
        const opensMs = Math.min(launchedAtMs + warmupMs, endedAtMs);
        await setRunWindow(pool, runId, new Date(opensMs), new Date(endedAtMs));
        await keepRunFigures(pool, runId, log);
      }
    }
    return code;
  });
}

/**
 * What the warm-up left out. @param {import('../pipeline/import.js').ImportResult} result
 * @param {string | undefined} warmup the flag as given @param {number} runId
 */
function warmupLine(result, warmup, runId) {
  const requests = `${result.warmup} request${result.warmup === 1 ? '' : 's'}`;
  return `warm-up: ${requests} sent in the first ${warmup} after the tool started, not in run ${runId}`;
}
