import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { startCli } from '../../test/support/cli.js';

/** Peak resident memory (VmHWM) of a running process, in MB. @param {number} pid */
export function peakRssMb(pid) {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * CPU time of a process, ms (Linux: /proc/PID/stat, 100 ticks a second): its own, and its waited-for
 * children's. @param {number | 'self'} pid
 */
export function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return {
    own: (Number(fields[11]) + Number(fields[12])) * 10,
    children: (Number(fields[13]) + Number(fields[14])) * 10,
  };
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
  if (exit.code !== 0)
    throw new Error(`${cli.child.spawnfile} failed (${exit.code}): ${cli.output.stderr.slice(-2000)}`);
  return peak;
}

/**
 * Runs paasmon to its end: seconds taken, its CPU seconds, peak RSS and its output.
 * @param {string[]} args @param {Record<string, string>} env
 */
export async function timedCli(args, env) {
  const [started, cpu] = [performance.now(), cpuMs('self').children];
  const cli = startCli(args, env);
  const peakMb = await exitWithPeakRss(cli);
  const cpuSeconds = (cpuMs('self').children - cpu) / 1000;
  return { seconds: (performance.now() - started) / 1000, cpuSeconds, peakMb, stdout: cli.output.stdout.trim() };
}

/**
 * Runs another program to its end (it must succeed): seconds taken, CPU seconds and peak RSS.
 * @param {string} command @param {string[]} args
 */
export async function timedCommand(command, args) {
  const [started, cpu] = [performance.now(), cpuMs('self').children];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (output.stdout += d));
  child.stderr.on('data', (d) => (output.stderr += d));
  /** @type {Promise<{ code: number | null, signal: string | null }>} */
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const peakMb = await exitWithPeakRss({ child, output, exited });
  const cpuSeconds = (cpuMs('self').children - cpu) / 1000;
  return { seconds: (performance.now() - started) / 1000, cpuSeconds, peakMb, stdout: output.stdout.trim() };
}
