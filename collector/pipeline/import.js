// Load-tool results into loadgen_requests: the pages of the load-results source, each encoded for
// COPY as it comes and written through the page writer, two at a time and committed in order.
// Rows already stored under their (run, id) key are skipped, so importing a file again adds nothing.
import { createPageWriter, encodeRecords } from '../../exporters/postgres/page-writer.js';
import { orderedWrites } from './ordered-writes.js';
import { WRITES_IN_FLIGHT } from '../../core/tunables.js';

/**
 * @typedef {object} ImportResult
 * @property {number} records requests read
 * @property {number} inserted rows new in PostgreSQL
 * @property {number} withIds requests that carry the tool's correlation id
 * @property {Map<string, number>} skipped lines that could not be read, by reason
 * @property {Map<string, string>} examples the first of each reason
 * @property {number | undefined} firstSentMs
 * @property {number | undefined} lastDoneMs
 */

/**
 * @param {AsyncIterable<import('../sources/load-results/index.js').ResultsPage>} pages
 * @param {{ runId: number, worker: string }} run
 * @param {{ pool: import('pg').Pool, writePage?: import('../../core/types.js').PageWriter }} deps
 * @returns {Promise<ImportResult>}
 */
export async function importResults(pages, run, deps) {
  const writePage = deps.writePage ?? createPageWriter(deps.pool);
  /** @type {ImportResult} */
  const result = {
    records: 0,
    inserted: 0,
    withIds: 0,
    skipped: new Map(),
    examples: new Map(),
    firstSentMs: undefined,
    lastDoneMs: undefined,
  };
  const writes = orderedWrites(writePage, WRITES_IN_FLIGHT);
  try {
    for await (const page of pages) {
      let first = result.firstSentMs ?? Infinity;
      let last = result.lastDoneMs ?? -Infinity;
      for (const record of page.records) {
        record.runId = run.runId;
        record.worker = run.worker;
        if (record.startedAtMs < first) first = record.startedAtMs;
        if (record.startedAtMs + record.durationMs > last) last = record.startedAtMs + record.durationMs;
      }
      if (page.records.length) [result.firstSentMs, result.lastDoneMs] = [first, last];
      result.records += page.records.length;
      result.withIds += page.withIds;
      for (const [reason, n] of page.skipped) result.skipped.set(reason, (result.skipped.get(reason) ?? 0) + n);
      for (const [reason, text] of page.examples) if (!result.examples.has(reason)) result.examples.set(reason, text);
      if (!page.records.length) continue;
      const encoded = encodeRecords('loadgen_request', page.records, page.records.length);
      // Page n's rows go in once n-1's are (a row in both makes only the later wait), and commit after.
      await writes.write(
        {
          kind: 'loadgen_request',
          records: encoded ? [] : /** @type {any[]} */ (page.records),
          encoded,
          countOnly: true,
        },
        (inserted) => {
          result.inserted += inserted.count;
        },
      );
    }
    await writes.drain();
  } finally {
    await writes.settled();
  }
  return result;
}
