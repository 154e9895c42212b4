import { once } from 'node:events';
import { startCollector } from '../service.js';
import { shutdownSignal } from './shutdown.js';

/**
 * Runs until SIGTERM or SIGINT, then finishes the poll in flight, flushes and exits 0.
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, err: (line: string) => void }} deps
 */
export async function collectCommand(config, { log, err }) {
  const collector = await startCollector(config, { log });
  // On a terminal, where to look, in plain words (the JSON log line says the same for machines).
  if (process.stderr.isTTY) {
    const routerLogs = config.search.url ? `, router logs on "${config.ingestSchedule}"` : '';
    err(
      `paasmon collect: /metrics and /healthz on http://127.0.0.1:${collector.port}, ` +
        `polling on "${config.pollSchedule}"${routerLogs}; Ctrl-C stops`,
    );
  }
  const stop = shutdownSignal((signal) => {
    log.info({ signal }, 'collect: stopping');
    // A second signal, or a shutdown that hangs, must still end the process.
    setTimeout(() => {
      log.error('collect: shutdown took too long; exiting');
      process.exit(1);
    }, 10_000).unref();
  });
  await once(stop.signal, 'abort');
  await collector.stop();
}
