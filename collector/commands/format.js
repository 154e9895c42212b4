// Human output: fixed-width tables with the unit in every column header.

const MIB = 1024 * 1024;

/** @param {number | null} value @param {number} digits */
const num = (value, digits) => (value === null ? '-' : value.toFixed(digits));
/** @param {number | null} used @param {number | null} quota */
const mibPair = (used, quota) =>
  `${used === null ? '-' : (used / MIB).toFixed(1)} / ${quota === null ? '-' : (quota / MIB).toFixed(0)}`;

/** @param {number | null} seconds */
export function formatUptime(seconds) {
  if (seconds === null) return '-';
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  return d > 0
    ? `${d}d${String(h).padStart(2, '0')}h${String(m).padStart(2, '0')}m`
    : `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/**
 * @param {string[]} header @param {string[][]} rows @param {Set<number>} rightAligned column indexes
 */
export function formatTable(header, rows, rightAligned) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (/** @type {string[]} */ cells) =>
    cells
      .map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Like `cf app`, with units stated. @param {import('../../core/types.js').InstanceSample[]} samples */
export function formatInstanceTable(samples) {
  const header = [
    'app',
    'process',
    '#',
    'state',
    'cpu % of core',
    'cpu % of entitlement',
    'memory MiB / quota',
    'disk MiB / quota',
    'uptime',
  ];
  const rows = samples.map((s) => [
    s.appName,
    s.processType,
    String(s.instanceIndex),
    s.state,
    num(s.cpuPercent, 1),
    num(s.cpuEntitlementPercent, 1),
    mibPair(s.memBytes, s.memQuotaBytes),
    mibPair(s.diskBytes, s.diskQuotaBytes),
    formatUptime(s.uptimeSeconds),
  ]);
  return formatTable(header, rows, new Set([2, 4, 5, 6, 7, 8]));
}
