// Router-log ingest: a window (or the next increment after the checkpoint) from the search store,
// or gorouter lines from a file or stdin, into PostgreSQL. Each is a paged source read through the
// one page path (pages.js): pages are committed one by one, each with the checkpoint in the same
// transaction; re-reading a window adds nothing.
import fs from 'node:fs';
import { EXPECTED_SKIPS } from '../../core/reason-codes.js';
import { readCheckpoint } from '../../exporters/postgres/claims/checkpoints.js';
import { ingestPages } from './pages.js';

export { EXPECTED_SKIPS };
export { addResult, describeVerdict, noGorouterLine, skippedShare, skippedVerdict } from './skips.js';

/** @typedef {import('./skips.js').IngestResult} IngestResult */

/**
 * @typedef {object} IngestDeps
 * @property {import('pg').Pool} pool where the checkpoints are read
 * @property {import('../../core/types.js').PageWriter} [writePage] default: the PostgreSQL page writer on `pool`
 * @property {Pick<import('../../core/types.js').Sink, 'write'>} [metrics] shown the newly stored records
 * @property {(reason: string, detail: string) => void} [warn] counts a skipped record
 */

/**
 * @typedef {import('../../core/types.js').PagedSource & { checkpointKey: string }} WindowSource a paged
 *   source read by time windows (router-logs: createRouterLogSource)
 */

/**
 * Reads [from, to) and stores it. With `checkpoint`, the position moves after every committed
 * page and lands on `to` at the end.
 * @param {WindowSource} source
 * @param {{ from: string, to: string, checkpoint?: string, signal?: AbortSignal }} window
 * @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestWindow(source, window, deps) {
  const keyed = window.checkpoint ? { ...source, checkpointKey: window.checkpoint } : source;
  const read = { start: window.from, until: window.to, checkpoint: Boolean(window.checkpoint), signal: window.signal };
  const describeSkip = (/** @type {string} */ reason, /** @type {number} */ n) =>
    `${n} router-log documents skipped: ${reason}`;
  const pages = await ingestPages(keyed, { ...read, encoded: true }, { ...deps, describeSkip });
  const { records, inserted, cleaned, skipped, examples, read: documents, busyMs } = pages;
  return { records, inserted, cleaned, skipped, examples, documents, from: window.from, to: window.to, busyMs };
}

/**
 * The next increment: from the checkpoint (or now - delay - lookback) to now - delay.
 * @param {WindowSource} source
 * @param {{ now: Date, delayMs: number, lookbackMs: number, signal?: AbortSignal }} options
 * @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestIncrement(source, options, deps) {
  const to = new Date(options.now.getTime() - options.delayMs).toISOString();
  const from =
    (await readCheckpoint(deps.pool, source.checkpointKey)) ??
    new Date(options.now.getTime() - options.delayMs - options.lookbackMs).toISOString();
  if (from >= to) return { records: 0, inserted: 0, skipped: new Map(), documents: 0, from, to };
  return ingestWindow(source, { from, to, checkpoint: source.checkpointKey, signal: options.signal }, deps);
}

/**
 * Gorouter lines, or `cf logs APP --recent` output, from a file or stdin, streamed in batches
 * (constant memory whatever the size), as the caller's line source yields them.
 * @param {import('../../core/types.js').PagedSource} source @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestLines(source, deps) {
  const describeSkip = (/** @type {string} */ reason, /** @type {number} */ n) => `${n} lines skipped: ${reason}`;
  const pages = await ingestPages(source, { start: undefined }, { ...deps, describeSkip });
  const { records, inserted, cleaned, skipped, examples, read: lines, firstLine } = pages;
  return { records, inserted, cleaned, lines, skipped, examples, firstLine };
}

/** @param {string} path a file, or - for stdin */
export function openLines(path) {
  return path === '-' ? process.stdin : fs.createReadStream(path);
}
