import { startCollector } from '../service.js';

/**
 * Runs until SIGTERM or SIGINT, then finishes the poll in flight, flushes and exits 0.
 * @param {import('../config.js').Config} config @param {{ log: import('pino').Logger }} deps
 */
export async function collectCommand(config, { log }) {
  const collector = await startCollector(config, { log });
  await new Promise((resolve) => {
    const onSignal = (/** @type {string} */ signal) => {
      log.info({ signal }, 'collect: stopping');
      // A second signal, or a shutdown that hangs, must still end the process.
      setTimeout(() => { log.error('collect: shutdown took too long; exiting'); process.exit(1); }, 10_000).unref();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      collector.stop().then(resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
