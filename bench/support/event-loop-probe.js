// Loaded into a benched `collect` with --import: on SIGUSR2 it writes the process's event-loop time so far
// (perf_hooks: ms idle, waiting for I/O or timers, and ms active) to the file named by BENCH_EVENT_LOOP_FILE,
// so the bench can tell the share of a phase `collect` spent waiting from the share it spent working.
// Only when asked, at a phase's start and end: written on a timer, its writes and renames took CPU inside the
// measured process and stalled its event loop (bench/README.md).
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const file = process.env.BENCH_EVENT_LOOP_FILE;
if (file) {
  let asked = 0;
  process.on('SIGUSR2', () => {
    asked += 1;
    const { idle, active } = performance.eventLoopUtilization();
    // Renamed into place: the bench never reads a file half written.
    fs.writeFileSync(`${file}.new`, `${asked} ${idle} ${active}`);
    fs.renameSync(`${file}.new`, file);
  });
}

/**
 * The event-loop time so far of `pid`, which writes `file` when asked: ms idle and active.
 * @param {number} pid @param {string} file @returns {Promise<{ idle: number, active: number }>}
 */
export async function eventLoopTime(pid, file) {
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(' ').map(Number) : [0, 0, 0]);
  const asked = read()[0] + 1;
  process.kill(pid, 'SIGUSR2');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(2)) {
    const [answered, idle, active] = read();
    if (answered === asked) return { idle, active };
  }
  throw new Error(`collect (pid ${pid}) did not write its event-loop time to ${file} within 10 s`);
}
