// Load-tool results into loadgen_requests through the shared page path (pages.js ingestPages): the
// pages of the load-results source, each given its run and encoded for COPY as it comes, written two
// at a time and committed in order. Rows already stored under their (run, id) key are skipped, so
// importing a file again adds nothing.
import { ingestPages } from './pages.js';

/**
 * A page of a load tool's results as the caller's source yields it (sources/load-results).
 * @typedef {object} ResultsPage
 * @property {Array<{ startedAtMs: number, durationMs: number, runId?: number, worker?: string }>} records
 * @property {Map<string, number>} skipped lines by reason
 * @property {Map<string, string>} examples the first skipped line of each reason
 * @property {number} withIds records that carry the tool's correlation id
 * @property {number} warmup requests sent before the run's window (run exec --warmup), left out
 */

/**
 * @typedef {object} ImportResult
 * @property {number} records requests read
 * @property {number} inserted rows new in PostgreSQL
 * @property {number} withIds requests that carry the tool's correlation id
 * @property {number} warmup requests of a warm-up, left out of the run
 * @property {Map<string, number>} skipped lines that could not be read, by reason
 * @property {Map<string, string>} examples the first of each reason
 * @property {number | undefined} firstSentMs
 * @property {number | undefined} lastDoneMs
 */

/**
 * @param {AsyncIterable<ResultsPage>} pages
 * @param {{ runId: number, worker: string }} run
 * @param {{ pool: import('pg').Pool, writePage?: import('../../core/types.js').PageWriter }} deps
 * @returns {Promise<ImportResult>}
 */
export async function importResults(pages, run, deps) {
  let withIds = 0;
  let warmup = 0;
  let firstSentMs = Infinity;
  let lastDoneMs = -Infinity;
  /** @type {Map<string, string>} */
  const examples = new Map();
  /** @type {import('../../core/types.js').PagedSource} */
  const source = {
    name: 'import',
    async *readPages(_position, options) {
      const encode = options?.encode;
      for await (const page of pages) {
        for (const record of page.records) {
          record.runId = run.runId;
          record.worker = run.worker;
          if (record.startedAtMs < firstSentMs) firstSentMs = record.startedAtMs;
          if (record.startedAtMs + record.durationMs > lastDoneMs) lastDoneMs = record.startedAtMs + record.durationMs;
        }
        withIds += page.withIds;
        warmup += page.warmup;
        for (const [reason, text] of page.examples) if (!examples.has(reason)) examples.set(reason, text);
        // Paged, every request has its key: the tool's id or one derived from the row.
        const records = /** @type {any[]} */ (page.records);
        const rows = records.length;
        const encoded = rows && encode ? encode('loadgen_request', records, rows) : undefined;
        const skipped = [...page.skipped.values()].reduce((sum, n) => sum + n, 0);
        yield {
          kind: 'loadgen_request',
          records: encoded ? [] : records,
          encoded,
          skipped: page.skipped,
          read: rows + page.warmup + skipped,
        };
      }
    },
  };
  const result = await ingestPages(source, { start: undefined, encoded: true }, deps);
  const any = result.records > 0;
  return {
    records: result.records,
    inserted: result.inserted,
    withIds,
    warmup,
    skipped: result.skipped,
    examples,
    firstSentMs: any ? firstSentMs : undefined,
    lastDoneMs: any ? lastDoneMs : undefined,
  };
}
