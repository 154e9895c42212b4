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
      // Read at every scan: between fork and exec a child still shows its parent's command line.
      let cmd = seen.get(key)?.cmd ?? '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() || cmd;
      } catch {
        /* gone */
      }
      seen.set(key, { pid, pgid: stat.pgid, start: stat.start, cmd });
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

/**
 * Processes anywhere on the machine whose command line mentions `text` (a daemon such as a
 * PostgreSQL started through pg_ctl leaves the tree of whoever started it).
 * @param {string} text
 */
export function processesMentioning(text) {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmd.includes(text)) found.push({ pid: Number(name), cmd });
    } catch {
      /* gone */
    }
  }
  return found;
}
