// Diego measures an instance's usage on an interval of its own (the rep's
// container_metrics_report_interval), and the Cloud Controller answers every stats call with the
// latest measurement: a poll between two measurements finds the instance's previous reading again.
// Such a sample is marked `repeated`: Prometheus still shows it (the instance's current state), but
// it is no new measurement, so it is not stored as one.

/** @typedef {import('../../../core/types.js').InstanceSample} InstanceSample */

/** @param {InstanceSample} s */
const instanceKey = (s) => `${s.appGuid}\u0000${s.processType}\u0000${s.instanceIndex}`;

/** The measured part of a sample; undefined when it holds none (no usage: metrics backend down, DOWN). */
function readingOf(/** @type {InstanceSample} */ s) {
  if (s.cpuPercent === null && s.memBytes === null && s.diskBytes === null) return undefined;
  return `${s.state}|${s.cpuPercent}|${s.cpuEntitlementPercent}|${s.memBytes}|${s.diskBytes}`;
}

/** Each instance's latest reading, across polls of one collector. */
export function createReadingMemory() {
  /** @type {Map<string, string>} */
  const latest = new Map();
  return {
    /**
     * Marks the samples whose reading equals their instance's previous one (`repeated: true`).
     * @param {InstanceSample[]} samples @returns {InstanceSample[]} the same samples
     */
    mark(samples) {
      for (const sample of samples) {
        const reading = readingOf(sample);
        if (reading === undefined) continue;
        const key = instanceKey(sample);
        if (latest.get(key) === reading) sample.repeated = true;
        else latest.set(key, reading);
      }
      return samples;
    },
  };
}
