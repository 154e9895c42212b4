import { once } from 'node:events';
import { startCollector } from '../service.js';
import { shutdownSignal } from './shutdown.js';
import { SHUTDOWN_BUDGET_MS } from '../../core/tunables.js';

/** @typedef {import('../service.js').PollOutcome} PollOutcome */

/**
 * One line per poll for a person at a terminal: apps, instances, how many run, how long it took.
 * @param {PollOutcome} outcome @param {Date} now
 */
export function pollLine(outcome, now) {
  const time = now.toISOString().slice(11, 19);
  const apps = new Set(outcome.records.map((s) => s.appGuid)).size;
  const running = outcome.records.filter((s) => s.state === 'RUNNING').length;
  const took = `${Math.round(outcome.durationMs)} ms`;
  const seen = `${apps} app${apps === 1 ? '' : 's'}, ${outcome.records.length} instances (${running} running)`;
  if (outcome.error) return `${time} UTC  poll failed after ${took}: ${outcome.error.message}; kept: ${seen}`;
  return `${time} UTC  poll: ${seen}, ${took}`;
}

/**
 * Runs until SIGTERM or SIGINT, then finishes the poll in flight, flushes and exits 0.
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, err: (line: string) => void }} deps
 */
export async function collectCommand(config, { log, err }) {
  const onPoll = process.stderr.isTTY ? (/** @type {PollOutcome} */ o) => err(pollLine(o, new Date())) : undefined;
  const collector = await startCollector(config, { log, onPoll });
  // On a terminal, where to look, in plain words (the JSON log line says the same for machines).
  if (process.stderr.isTTY) {
    const routerLogs = config.search.url ? `, router logs on "${config.ingestSchedule}"` : '';
    err(
      `paasmon collect: /metrics, /healthz, /livez, /readyz on http://127.0.0.1:${collector.port}, ` +
        `polling on "${config.pollSchedule}"${routerLogs}; Ctrl-C stops`,
    );
  }
  const stop = shutdownSignal((signal) => {
    log.info({ signal }, 'collect: stopping');
    // A second signal, or a shutdown that hangs, must still end the process.
    setTimeout(() => {
      log.error('collect: shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_BUDGET_MS).unref();
  });
  const fatal = await Promise.race([once(stop.signal, 'abort').then(() => undefined), collector.failed]);
  await collector.stop();
  stop.dispose();
  // One line on stderr and exit 1 (cli.js): e.g. the migration that failed and the server's error.
  if (fatal) throw fatal;
}
