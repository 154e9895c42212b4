// The open model's schedule: when request i is due, at a constant rate R, or after a linear ramp
// of the rate from 0 to R over d (k6's ramping-arrival-rate, Gatling's rampUsersPerSec). With a
// ramp, N(t) = R t^2 / (2d) requests are due by t <= d and R d / 2 + R (t - d) after; request i
// is due when N(t) = i. A ramp lets the generator's code (and the target's) warm up before the
// full rate instead of starting cold into a backlog.
//
// Each due time is computed from i, never by adding intervals, so it does not drift.

export class Schedule {
  /** @param {number} rate requests per second at full rate @param {number} rampMs 0: no ramp */
  constructor(rate, rampMs) {
    this.rate = rate;
    this.rampMs = rampMs;
    /** ms between two requests at full rate */
    this.interval = 1000 / rate;
    /** N(d): the requests due during the ramp (not a whole number in general) */
    this.rampRequests = (rate * rampMs) / 2000;
    // t_i = sqrt(2 d i / R) = sqrt(2 d interval i) during the ramp.
    this.rampFactor = 2 * rampMs * this.interval;
    this.halfRamp = rampMs / 2;
  }

  /**
   * When request i (0-based) is due, in ms after the schedule's start. Without a ramp exactly
   * i * (1000 / rate), as before ramps existed.
   * @param {number} i
   */
  dueOffset(i) {
    if (i < this.rampRequests) return Math.sqrt(this.rampFactor * i);
    // t_i = i / R + d / 2; at i = N(d) both give d.
    return this.rampMs === 0 ? i * this.interval : i * this.interval + this.halfRamp;
  }

  /**
   * How many requests are due before `ms` after the start (those with dueOffset(i) < ms).
   * @param {number} ms
   */
  dueBefore(ms) {
    if (ms <= 0) return 0;
    const due =
      ms <= this.rampMs ? (this.rate * ms * ms) / (2000 * this.rampMs) : (this.rate * (ms - this.halfRamp)) / 1000;
    // N(ms) in closed form, then settled on the due times themselves against rounding.
    let n = Math.max(0, Math.ceil(due));
    while (n > 0 && this.dueOffset(n - 1) >= ms) n -= 1;
    while (this.dueOffset(n) < ms) n += 1;
    return n;
  }
}
