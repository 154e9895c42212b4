// The open model: request i is due at a fixed time whatever earlier ones did, and latency counts from
// that due time, so a stalled server is not hidden.
import { Schedule } from './schedule.js';

/** The open model opens, before it starts, the connections answers within this long would need. */
export const PREOPEN_LATENCY_MS = 10;
/** The longest the schedule waits for those connections: workers started together stay together. */
export const PREOPEN_WAIT_MS = 200;
/**
 * What the open model's schedule did, counted by request index (requests are sent in index order):
 * requests due before sending stopped and those sent; why and when (ms after the start) it
 * stopped; and the full-rate part (after the ramp, if any): the requests due from the ramp's end
 * until sending stopped, how many of them were sent, and over how long (to the stop, or to the
 * last send when that came later).
 * @typedef {object} ScheduleTally
 * @property {number} scheduled @property {number} sent
 * @property {'deadline' | 'requests' | 'signal'} stoppedBy @property {number} stoppedAtMs
 * @property {number} fullRateScheduled @property {number} fullRateSent @property {number} fullRateMs
 */

/**
 * Sending stopped before request `next`, due at `offset` (ms after the start): what was due by then, and what
 * was sent.
 * @param {object} at
 * @param {import('./load.js').Load} at.load
 * @param {Schedule} at.schedule
 * @param {number} at.offset
 * @param {number} at.next requests sent
 * @returns {ScheduleTally} with fullRateMs 0: known once the last request has been written
 */
function tallyAtStop({ load, schedule, offset, next }) {
  const durationMs = load.options.durationMs ?? Infinity;
  const requests = load.options.requests ?? Infinity;
  /** @type {ScheduleTally['stoppedBy']} */
  const stoppedBy =
    offset >= durationMs
      ? 'deadline'
      : next >= requests
        ? 'requests'
        : load.hooks.signal?.aborted
          ? 'signal'
          : 'deadline';
  // The deadline counts what was due before it, sent or not (late at the end: not sent, counted).
  const stoppedAtMs =
    stoppedBy === 'deadline' ? durationMs : stoppedBy === 'requests' ? offset : performance.now() - load.clockStart;
  const scheduled = Math.max(next, Math.min(requests, schedule.dueBefore(stoppedAtMs)));
  const rampRequests = schedule.dueBefore(schedule.rampMs);
  return {
    scheduled,
    sent: next,
    stoppedBy,
    stoppedAtMs,
    fullRateScheduled: Math.max(0, scheduled - rampRequests),
    fullRateSent: Math.max(0, next - rampRequests),
    fullRateMs: 0,
  };
}

/**
 * Open model: request i is due at start + i / rate (after a ramp: see schedule.js), whether or not
 * earlier ones returned. Every time the generator wakes up anyway (a response came in) it sends
 * what is due; a timer wakes it at the next due time when nothing else does (at least every
 * millisecond). A request is never sent early, and the delay between due and actual send is
 * measured (send-time error), and, separately, its part before the generator took the request
 * (the rest is waiting for a free connection). Enough connections for answers within
 * PREOPEN_LATENCY_MS at the asked rate (the full rate, also with a ramp) are opened before the
 * first request is due; more are opened as needed up to the maximum; beyond it a request waits for
 * one, and is sent late.
 * @param {import('./load.js').Load} load @param {number} rate @returns {Promise<ScheduleTally>}
 */
export async function openModel(load, rate) {
  await load.connections.preopen(Math.ceil((rate * PREOPEN_LATENCY_MS) / 1000), {
    waitMs: PREOPEN_WAIT_MS,
    signal: load.hooks.signal,
  });
  // The schedule starts once the connections are open.
  load.clockStart = performance.now();
  load.epochOffset = Date.now() - load.clockStart;
  if (load.options.durationMs !== undefined) load.deadline = load.clockStart + load.options.durationMs;
  const schedule = new Schedule(rate, load.options.rampMs ?? 0);
  const durationMs = load.options.durationMs ?? Infinity;
  let next = 0;
  let scheduling = true;
  let lastSentAt = load.clockStart;
  /** @type {ScheduleTally | undefined} */
  let tally;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  return new Promise((resolve) => {
    const finishIfIdle = () => {
      if (scheduling || load.inFlight > 0 || load.recordWait || !tally) return;
      const lastSendMs = lastSentAt - load.clockStart;
      resolve({ ...tally, fullRateMs: Math.max(0, Math.max(tally.stoppedAtMs, lastSendMs) - schedule.rampMs) });
    };
    /** Sends every request due by now. @returns {number} ms until the next one is due, 0 when none is left */
    const sendDue = () => {
      const now = performance.now();
      for (;;) {
        // The deadline compared in offsets, as dueBefore counts them.
        const offset = schedule.dueOffset(next);
        if (offset >= durationMs || !load.more()) {
          scheduling = false;
          tally = tallyAtStop({ load, schedule, offset, next });
          clearTimeout(timer);
          finishIfIdle();
          return 0;
        }
        const dueAt = load.clockStart + offset;
        if (dueAt > now) return dueAt - now;
        next += 1;
        load.send(dueAt);
      }
    };
    const tick = () => {
      timer = undefined;
      if (load.recordWait) {
        load.recordWait.then(tick, tick);
        return;
      }
      const wait = sendDue();
      // Timers fire on whole milliseconds, up to one early: wake a little before, then again a
      // millisecond later. No busy wait (setImmediate): spinning takes the CPU the target and
      // PostgreSQL need on a small machine.
      if (wait > 0) timer = setTimeout(tick, Math.max(1, wait - 1));
    };
    load.onDone = (exchange) => {
      load.stats.recordSend(exchange.sentAt - exchange.dueAt, exchange.takenAt - exchange.dueAt);
      if (exchange.sentAt > lastSentAt) lastSentAt = exchange.sentAt;
      if (scheduling && !load.recordWait) sendDue();
      finishIfIdle();
    };
    tick();
  });
}
