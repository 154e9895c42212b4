// Running statistics of a load run: HDR histogram for percentiles (no samples kept), exact count,
// mean and standard deviation, status codes and error kinds; in the open model also how late each
// request was sent against its schedule.
import * as hdr from 'hdr-histogram-js';
import { LATENCY_BUCKETS } from '../core/latency-buckets.js';

/** Upper bounds (ms) of the latency histogram: the buckets of the Prometheus histograms. */
export const BUCKET_BOUNDS_MS = LATENCY_BUCKETS.map((s) => s * 1000);

/** A request sent more than this after its due time counts as late (the asked rate was not kept). */
export const LATE_SEND_MS = 10;

// Microseconds from 1 us to 1 h, 3 significant digits: a percentile is off by at most 0.1 %.
const microsHistogram = () =>
  hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });

export function createStats() {
  const histogram = microsHistogram();
  let count = 0;
  let sum = 0;
  let sumSquares = 0;
  let max = 0;
  let min = Infinity;
  /** Requests per bucket (not cumulative); the last one is above every bound. */
  const buckets = new Array(BUCKET_BOUNDS_MS.length + 1).fill(0);
  /** @type {Map<number, number>} */
  const statuses = new Map();
  /** @type {Map<string, number>} */
  const errors = new Map();
  const responses = {
    /** @param {number} durationMs @param {number} status 0 when no response @param {string | null} error */
    record(durationMs, status, error) {
      count += 1;
      sum += durationMs;
      sumSquares += durationMs * durationMs;
      max = Math.max(max, durationMs);
      min = Math.min(min, durationMs);
      let bucket = 0;
      while (bucket < BUCKET_BOUNDS_MS.length && durationMs > BUCKET_BOUNDS_MS[bucket]) bucket++;
      buckets[bucket] += 1;
      histogram.recordValue(Math.max(1, Math.round(durationMs * 1000)));
      if (status) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (error) errors.set(error, (errors.get(error) ?? 0) + 1);
    },
    get count() {
      return count;
    },
    get errorCount() {
      let n = 0;
      for (const v of errors.values()) n += v;
      for (const [s, v] of statuses) if (s >= 500) n += v;
      return n;
    },
    /** @param {number} p 0..100 @returns {number} ms */
    percentile(p) {
      return count ? histogram.getValueAtPercentile(p) / 1000 : 0;
    },
    get meanMs() {
      return count ? sum / count : 0;
    },
    get stddevMs() {
      return count > 1 ? Math.sqrt(Math.max(0, (sumSquares - (sum * sum) / count) / (count - 1))) : 0;
    },
    get maxMs() {
      return max;
    },
    get minMs() {
      return count ? min : 0;
    },
    buckets,
    statuses,
    errors,
  };
  return withAccessorsOf(responses, createSendLagStats());
}

/** Open model: how late each request was sent against its schedule, and how much of that was the generator's. */
function createSendLagStats() {
  /** Actual send minus due time. */
  const sendLag = microsHistogram();
  /** The generator's own part of it, until it took the request (then it waited for a connection). */
  const generatorLag = microsHistogram();
  let sends = 0;
  let late = 0;
  let lateByGenerator = 0;
  /** ms of a send-lag histogram (kept in µs): percentile p, or the maximum without p; 0 before any send. */
  const lagAt = (/** @type {hdr.Histogram} */ lags, /** @type {number} */ p = 100) =>
    sends ? (p === 100 ? lags.maxValue : lags.getValueAtPercentile(p)) / 1000 : 0;
  return {
    /**
     * How long after its due time a request was sent, and how long after it the generator took it
     * (the rest it waited for a free connection).
     * @param {number} lagMs @param {number} generatorLagMs
     */
    recordSend(lagMs, generatorLagMs) {
      sends += 1;
      if (lagMs > LATE_SEND_MS) {
        late += 1;
        if (2 * generatorLagMs >= lagMs) lateByGenerator += 1;
      }
      sendLag.recordValue(Math.max(1, Math.round(lagMs * 1000)));
      generatorLag.recordValue(Math.max(1, Math.round(generatorLagMs * 1000)));
    },
    /** Requests whose send was recorded (open model). */
    get sends() {
      return sends;
    },
    /** Requests sent more than LATE_SEND_MS after their due time. */
    get lateSends() {
      return late;
    },
    /** @param {number} p 0..100 @returns {number} ms the send came after the due time */
    sendLagPercentile: (p) => lagAt(sendLag, p),
    get sendLagMaxMs() {
      return lagAt(sendLag);
    },
    /** Late sends that lost most of their lateness before the generator took them (it was behind). */
    get lateByGenerator() {
      return lateByGenerator;
    },
    /** @param {number} p 0..100 @returns {number} ms after its due time the generator took a request */
    generatorLagPercentile: (p) => lagAt(generatorLag, p),
    get generatorLagMaxMs() {
      return lagAt(generatorLag);
    },
  };
}

/**
 * `target` with the properties of `source` added as they are: getters stay getters (a spread would read them once).
 * @template {object} A @template {object} B
 * @param {A} target @param {B} source @returns {A & B}
 */
const withAccessorsOf = (target, source) =>
  /** @type {A & B} */ (Object.defineProperties(target, Object.getOwnPropertyDescriptors(source)));

/** @typedef {ReturnType<typeof createStats>} Stats */
