// The text a load run ends with, like hey's summary, from the run's statistics.
import { LATE_SEND_MS } from './stats.js';

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

/**
 * @typedef {object} ScheduleRun
 * @property {number} rate
 * @property {number} [rampMs]
 * @property {import('./generate.js').ScheduleTally} [schedule]
 */

/**
 * The rate the open model sent at, in its full-rate part (after the ramp, if any): the requests
 * due from the ramp's end until sending stopped that were sent, over the time from the ramp's end
 * to the stop (or to the last send, when the generator was still behind then). Counted by request
 * index, so a request of the ramp sent late does not count, and a request due but never sent
 * lowers it: a kept schedule reads as the asked rate, an unkept one below it. Undefined when no
 * request was due after the ramp.
 * @param {import('./generate.js').ScheduleTally | undefined} schedule @returns {number | undefined} per second
 */
export function sentRate(schedule) {
  if (!schedule?.fullRateScheduled || schedule.fullRateMs <= 0) return undefined;
  return schedule.fullRateSent / (schedule.fullRateMs / 1000);
}

/** @param {number} ms e.g. 1000 -> "1s" */
const seconds = (ms) => `${ms / 1000}s`;

/**
 * The open model's schedule: asked and achieved rate, requests scheduled and sent, how late they
 * were sent against their due times, and, loudly, when the asked rate was not kept (as k6 reports
 * dropped iterations).
 * @param {import('./stats.js').Stats} stats
 * @param {ScheduleRun & { connections: number, connectionsOpened: number }} run
 */
export function formatSchedule(stats, { rate, rampMs, schedule, connections, connectionsOpened }) {
  const sent = sentRate(schedule);
  const sentText =
    sent === undefined ? `nothing was due${rampMs ? ' after the ramp' : ''}` : `sent ${sent.toFixed(1)} req/s`;
  const asked = rampMs
    ? `${rate} req/s after a ${seconds(rampMs)} ramp from 0; ${sentText}${sent === undefined ? '' : ' at full rate'}`
    : `${rate} req/s; ${sentText}`;
  const lines = [
    '',
    `Schedule (open model, --rate ${rate}${rampMs ? ` --ramp ${seconds(rampMs)}` : ''}):`,
    `  Asked:        ${asked}`,
    `  Send time after due (ms): p50 ${fmt(stats.sendLagPercentile(50))}  p99 ${fmt(stats.sendLagPercentile(99))}` +
      `  max ${fmt(stats.sendLagMaxMs)}`,
    `    the generator's own: p50 ${fmt(stats.generatorLagPercentile(50))}  ` +
      `p99 ${fmt(stats.generatorLagPercentile(99))}  max ${fmt(stats.generatorLagMaxMs)} ` +
      '(until it took the request; the rest is waiting for a free connection)',
    ...(schedule ? [`  Scheduled:    ${formatScheduled(schedule)}`] : []),
    `  Connections:  ${connectionsOpened} opened (at most ${connections}, --connections)`,
    `  Late sends:   ${stats.lateSends} (more than ${LATE_SEND_MS} ms after their due time)`,
  ];
  const unsent = schedule && schedule.stoppedBy !== 'signal' ? schedule.scheduled - schedule.sent : 0;
  if (stats.lateSends > 0 || unsent > 0) {
    // Where most of the late and unsent requests lost their time: before the generator took them
    // (those never sent, always), or waiting for a free connection. A generator short of CPU also
    // reads answers late, which shows as the latter: the generator's own send time says how busy it was.
    const why =
      2 * (stats.lateByGenerator + unsent) >= stats.lateSends + unsent
        ? 'the generator could not keep up (CPU-bound, or waiting for PostgreSQL)'
        : connectionsOpened >= connections
          ? `all ${connections} connections were busy: raise --connections, or the target is saturated`
          : 'every open connection was busy while more were being opened (one at a time)';
    const percent = ((100 * stats.lateSends) / Math.max(1, stats.sends)).toFixed(2);
    const notSent = unsent > 0 ? `, ${unsent} due were never sent` : '';
    lines.push(
      `  WARNING: the asked rate was not kept: ${stats.lateSends} of ${stats.sends} requests (${percent} %) ` +
        `were sent late${notSent}; ${why}. Their latency counts from the due time.`,
    );
  }
  return lines.join('\n');
}

/** @param {import('./generate.js').ScheduleTally} schedule */
function formatScheduled({ scheduled, sent, stoppedBy }) {
  const unsent = scheduled - sent;
  const why =
    stoppedBy === 'signal'
      ? ' before the stop (Ctrl-C)'
      : ` (${unsent} due before sending stopped were not sent: the generator was behind)`;
  return `${scheduled} requests due, ${sent} sent${unsent > 0 ? why : ''}`;
}

/** The recorder's back-pressure, when it bit. @param {number} waits */
export function formatWaits(waits) {
  return waits ? `; the generator waited ${waits} times for PostgreSQL (every write slot busy)` : '';
}

/**
 * What the warm-up sent before the run: counted here only, in no run's figures.
 * @param {import('./stats.js').Stats} stats @param {number} elapsedMs @param {number} runId
 */
export function formatWarmup(stats, elapsedMs, runId) {
  const rate = elapsedMs > 0 ? (stats.count / (elapsedMs / 1000)).toFixed(1) : '0.0';
  return (
    `Warm-up: ${stats.count} requests in ${(elapsedMs / 1000).toFixed(3)} s (${rate} req/s, ` +
    `${stats.errorCount} errors, p95 ${stats.percentile(95).toFixed(2)} ms); not recorded in run ${runId}\n`
  );
}
