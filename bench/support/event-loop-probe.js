// Loaded into a benched `collect` with --import: every 25 ms it writes the process's event-loop time so far
// (perf_hooks: ms idle, waiting for I/O or timers, and ms active) to the file named by BENCH_EVENT_LOOP_FILE,
// so the bench can tell the share of a phase `collect` spent waiting from the share it spent working.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.BENCH_EVENT_LOOP_FILE;
if (file) {
  const write = () => {
    const { idle, active } = performance.eventLoopUtilization();
    // Renamed into place: the bench never reads a file half written.
    fs.writeFileSync(`${file}.new`, `${idle} ${active}`);
    fs.renameSync(`${file}.new`, file);
  };
  write();
  setInterval(write, 25).unref();
  process.once('beforeExit', write);
}

/**
 * The event-loop time so far of the process writing `file`: ms idle and active.
 * @param {string} file @returns {{ idle: number, active: number }}
 */
export function eventLoopTime(file) {
  const [idle, active] = fs.readFileSync(file, 'utf8').split(' ').map(Number);
  return { idle, active };
}
