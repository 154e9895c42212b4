// CPU and memory of a real process from /proc, as a Diego cell measures its containers: CPU as the
// fraction of one core used since the previous reading (utime + stime deltas over wall time),
// memory as the resident set. Linux only.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** @param {string} name a getconf variable @param {number} fallback */
function getconf(name, fallback) {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
}

const CLOCK_TICKS_PER_SECOND = getconf('CLK_TCK', 100);
const PAGE_SIZE = getconf('PAGESIZE', 4096);

/**
 * The fields of /proc/<pid>/stat paasmon needs. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last ')'.
 * @param {string} text
 * @returns {{ cpuTicks: number, startTicks: number, rssPages: number }}
 */
export function parseProcStat(text) {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime 14, stime 15, starttime 22, rss 24.
  return {
    cpuTicks: Number(fields[11]) + Number(fields[12]),
    startTicks: Number(fields[19]),
    rssPages: Number(fields[21]),
  };
}

/** Seconds since boot, from /proc/uptime. */
function systemUptimeSeconds() {
  return Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
}

/**
 * Usage of `pid` now; undefined once the process is gone. The first reading covers the process's
 * whole life, later ones the time since the previous reading.
 * @param {number} pid
 */
export function createProcUsage(pid) {
  /** @type {{ cpuTicks: number, atSeconds: number } | undefined} */
  let previous;
  return () => {
    let stat;
    try {
      stat = parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return undefined;
    }
    const nowSeconds = systemUptimeSeconds();
    const from = previous ?? { cpuTicks: 0, atSeconds: stat.startTicks / CLOCK_TICKS_PER_SECOND };
    const elapsed = nowSeconds - from.atSeconds;
    const cpu = elapsed > 0 ? Math.max(0, (stat.cpuTicks - from.cpuTicks) / CLOCK_TICKS_PER_SECOND / elapsed) : 0;
    previous = { cpuTicks: stat.cpuTicks, atSeconds: nowSeconds };
    return {
      cpu,
      mem: stat.rssPages * PAGE_SIZE,
      uptime: Math.max(0, Math.floor(nowSeconds - stat.startTicks / CLOCK_TICKS_PER_SECOND)),
    };
  };
}

/**
 * `measure` at most once per interval of `intervalMs` (at the first ask after an interval's end), its
 * latest result in between: a Diego cell's readings as the Cloud Controller answers them.
 * @template T @param {() => T} measure @param {number} intervalMs @param {() => number} [clock] ms
 * @returns {() => T}
 */
export function onInterval(measure, intervalMs, clock = Date.now) {
  /** @type {{ interval: number, value: T } | undefined} */
  let latest;
  return () => {
    const interval = Math.floor(clock() / intervalMs);
    if (latest?.interval !== interval) latest = { interval, value: measure() };
    return latest.value;
  };
}
