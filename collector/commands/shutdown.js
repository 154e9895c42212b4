// SIGTERM (cf stop, cf push) and SIGINT (Ctrl-C) as an AbortSignal, for long-running commands.

/**
 * @param {(signal: string) => void} [onSignal] called once, with the signal's name
 * @returns {{ signal: AbortSignal, dispose: () => void }}
 */
export function shutdownSignal(onSignal) {
  const controller = new AbortController();
  const handler = (/** @type {string} */ name) => {
    dispose();
    onSignal?.(name);
    controller.abort(new Error(`stopped by ${name}`));
  };
  const dispose = () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
  return { signal: controller.signal, dispose };
}
