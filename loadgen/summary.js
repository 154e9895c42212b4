// The text a load run ends with, like hey's summary, from the run's statistics.

/** @param {number} ms */
const fmt = (ms) => ms.toFixed(2).padStart(10);

/**
 * @param {import('./stats.js').Stats} stats @param {number} elapsedMs
 */
export function formatSummary(stats, elapsedMs) {
  const errorPercent = stats.count ? ((100 * stats.errorCount) / stats.count).toFixed(2) : '0.00';
  const lines = [
    'Summary:',
    `  Requests:     ${stats.count}`,
    `  Total:        ${(elapsedMs / 1000).toFixed(3)} s`,
    `  Requests/sec: ${(stats.count / (elapsedMs / 1000)).toFixed(1)}`,
    `  Errors:       ${stats.errorCount} (${errorPercent} %; no response or 5xx)`,
    '',
    'Latency (ms; percentiles from an HDR histogram, 3 significant digits):',
    `  mean ${fmt(stats.meanMs)}  stddev ${fmt(stats.stddevMs)}`,
    `  p50  ${fmt(stats.percentile(50))}  p90    ${fmt(stats.percentile(90))}  p95 ${fmt(stats.percentile(95))}`,
    `  p99  ${fmt(stats.percentile(99))}  max    ${fmt(stats.maxMs)}`,
    '',
    'Status codes:',
    ...[...stats.statuses].sort((a, b) => a[0] - b[0]).map(([status, n]) => `  [${status}] ${n} responses`),
  ];
  if (stats.errors.size) lines.push('', 'Errors:', ...[...stats.errors].map(([kind, n]) => `  ${kind}: ${n}`));
  return lines.join('\n');
}

/** One line of live progress. @param {import('./stats.js').Stats} s @param {number} elapsedMs */
export function formatProgress(s, elapsedMs) {
  const rate = (s.count / (elapsedMs / 1000)).toFixed(0);
  const p50 = s.percentile(50).toFixed(1);
  const p99 = s.percentile(99).toFixed(1);
  return `${s.count} requests  ${rate} rps  ${s.errorCount} errors  p50 ${p50} ms  p99 ${p99} ms   `;
}
