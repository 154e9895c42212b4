import fs from 'node:fs';

/** Peak resident memory (VmHWM) of a running process, in MB. @param {number} pid */
export function peakRssMb(pid) {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * Waits for a started `paasmon` process (test/support/cli.js startCli) to exit, sampling its peak
 * RSS until then; throws when it failed.
 * @param {ReturnType<typeof import('../../test/support/cli.js').startCli>} cli
 */
export async function exitWithPeakRss(cli) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, peakRssMb(/** @type {number} */ (cli.child.pid)));
    } catch {
      /* exited */
    }
  }, 100);
  const exit = await cli.exited;
  clearInterval(timer);
  if (exit.code !== 0) throw new Error(`paasmon failed (${exit.code}): ${cli.output.stderr.slice(-2000)}`);
  return peak;
}
