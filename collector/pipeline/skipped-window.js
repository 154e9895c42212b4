// How much a router-log source skipped recently, for /healthz (`degraded`) and
// paasmon_router_skipped_ratio{source}: judged over the source's latest increments that together
// hold at least SKIPPED_WINDOW_RECORDS records (read + skipped, expected skips aside), the latest
// always whole. A burst leaves the window once that many records came after it; a total breakage
// shows at once in an increment of that size; an increment that only re-reads the boundary
// document is weighed with the ones before it instead of clearing what they found.
import { addResult, skippedShare, skippedVerdict } from './skips.js';

/** Records (read + skipped) the window holds at least, when the source has read that many. */
export const SKIPPED_WINDOW_RECORDS = 1000;

/** @typedef {import('./skips.js').IngestResult} IngestResult */

/**
 * @param {{ maxRatio: number, expected?: readonly string[], windowRecords?: number }} options
 *   expected: skip reasons that are not a loss (EXPECTED_SKIPS)
 */
export function createSkippedWindow({ maxRatio, expected, windowRecords = SKIPPED_WINDOW_RECORDS }) {
  /** @type {Array<{ result: IngestResult, size: number }>} oldest first */
  let increments = [];
  /** @type {IngestResult} */
  let total = { records: 0, inserted: 0, skipped: new Map(), examples: new Map() };

  return {
    /** One increment's result. @param {IngestResult} result */
    add(result) {
      const size = result.records + skippedShare(result, expected).skipped;
      if (size === 0) return;
      increments.push({ result, size });
      let newer = 0;
      let from = increments.length;
      while (from > 0 && newer < windowRecords) newer += increments[--from].size;
      increments = increments.slice(from);
      total = { records: 0, inserted: 0, skipped: new Map(), examples: new Map() };
      for (const increment of increments) addResult(total, increment.result);
    },
    /** Skipped / (read + skipped) over the window; 0 before anything was read. */
    ratio: () => skippedShare(total, expected).ratio,
    /** Why the window skipped more than maxRatio allows, or undefined. */
    verdict: () => skippedVerdict(total, maxRatio, expected),
  };
}
