// Watches the process tree under a pid through /proc, so a test can check afterwards that every
// process that ever ran below it is gone (an orphan is re-parented and would hide from a later look).
import fs from 'node:fs';

/** @param {number} pid @returns {{ ppid: number, pgid: number, start: string } | undefined} */
function statOf(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] };
  } catch {
    return undefined;
  }
}

/** @param {number} rootPid @param {{ intervalMs?: number }} [options] */
export function watchProcessTree(rootPid, { intervalMs = 100 } = {}) {
  /** @type {Map<string, { pid: number, pgid: number, start: string, cmd: string }>} */
  const seen = new Map();
  const scan = () => {
    /** @type {Map<number, number[]>} */
    const children = new Map();
    /** @type {Map<number, { ppid: number, pgid: number, start: string }>} */
    const stats = new Map();
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const stat = statOf(Number(name));
      if (!stat) continue;
      stats.set(Number(name), stat);
      children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(name)]);
    }
    const queue = [...(children.get(rootPid) ?? [])];
    while (queue.length) {
      const pid = /** @type {number} */ (queue.shift());
      const stat = /** @type {{ ppid: number, pgid: number, start: string }} */ (stats.get(pid));
      const key = `${pid}:${stat.start}`;
      if (!seen.has(key)) {
        let cmd = '';
        try {
          cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        } catch {
          /* gone */
        }
        seen.set(key, { pid, pgid: stat.pgid, start: stat.start, cmd });
      }
      queue.push(...(children.get(pid) ?? []));
    }
  };
  scan();
  const timer = setInterval(scan, intervalMs);
  return {
    /** Stops watching; every descendant seen. */
    stop() {
      clearInterval(timer);
      scan();
      return [...seen.values()];
    },
    /** Those seen that still run (same pid and start time). */
    alive() {
      return [...seen.values()].filter((p) => statOf(p.pid)?.start === p.start);
    },
  };
}
