// Router-log ingest: a window (or the next increment after the checkpoint) from the search store,
// or gorouter lines from a file or stdin, into PostgreSQL. Pages are committed one by one, each
// with the checkpoint in the same transaction; re-reading a window adds nothing.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { headerLogField } from '../sources/router-logs/correlation-ids.js';
import { parseGorouterLine } from '../sources/router-logs/gorouter.js';
import { retry } from '../../core/retry.js';
import { resumePosition } from './file-position.js';
import { readCheckpoint } from '../../exporters/postgres/checkpoints.js';
import { orderedWrites } from './ordered-writes.js';
import { createPageWriter, encodeRecords } from '../../exporters/postgres/page-writer.js';

/**
 * @typedef {object} IngestResult
 * @property {number} records records read and well-formed
 * @property {number} inserted rows new in PostgreSQL
 * @property {Map<string, number>} skipped by reason
 * @property {number} [cleaned] records stored with text cleaned (0x00, bytes not UTF-8: U+FFFD)
 * @property {Map<string, import('../sources/router-logs/index.js').SkippedExample>} [examples] the first
 *   skipped document (or line) of each reason
 * @property {number} [documents] documents the window held (search only)
 * @property {number} [lines] lines read (file or stdin only)
 * @property {{ number: number, text: string }} [firstLine] the first line that is not blank, cut to
 *   LINE_EXAMPLE_CHARS (file or stdin only)
 * @property {string} [from]
 * @property {string} [to]
 * @property {{ source: number, write: number, wall: number }} [busyMs] search only: time each stage
 *   was busy (reading + parsing + encoding pages, writing pages; they overlap) and the whole window took
 *
 * @typedef {object} IngestDeps
 * @property {import('pg').Pool} pool where the checkpoints are read
 * @property {import('../../core/types.js').PageWriter} [writePage] default: the PostgreSQL page writer on `pool`
 * @property {Pick<import('../../core/types.js').Sink, 'write'>} [metrics] shown the newly stored records
 * @property {(reason: string, detail: string) => void} [warn] counts a skipped record
 * @property {(guids: string[]) => Promise<Map<string, string>>} [appNames] app names by guid, for lines
 *   that carry only the guid (the Cloud Controller)
 */

/**
 * @typedef {object} SkippedVerdict why an ingest skipped too much
 * @property {number} ratio skipped / (read + skipped)
 * @property {number} skipped
 * @property {string} reason the reason most records were skipped for
 * @property {number} count records skipped for that reason
 * @property {import('../sources/router-logs/index.js').SkippedExample | undefined} example
 */

/**
 * Reasons that are not a loss: lines of other sources in `cf logs` output (not_rtr) and router
 * messages with nothing in them (empty_rtr). In a file or stdin, lines that are no gorouter line at
 * all (the cf CLI's banner, blank lines) are other output too; in a search index filtered to RTR they are not.
 */
export const EXPECTED_SKIPS = Object.freeze({
  documents: ['not_rtr', 'empty_rtr'],
  lines: ['not_rtr', 'empty_rtr', 'not_gorouter', 'empty'],
});

/**
 * Skips counted (in the result and the metrics) but never warned about: whatever the source, they
 * are what `cf logs` output and router indices hold beside router requests.
 */
const UNWARNED_SKIPS = EXPECTED_SKIPS.documents;

/**
 * One warning per skip reason for a whole ingest, with its count.
 * @param {Map<string, number>} skipped @param {string} what @param {IngestDeps['warn']} warn
 */
function warnSkipped(skipped, what, warn) {
  for (const [reason, n] of skipped)
    if (!UNWARNED_SKIPS.includes(reason)) warn?.(reason, `${n} ${what} skipped: ${reason}`);
}

/** Characters of a line shown as an example. */
const LINE_EXAMPLE_CHARS = 80;

/**
 * Lines in which not one is a gorouter access-log line, nor a malformed one (a JSON file, a
 * hostname, `cf logs` of an app nobody called): a mistake the user must hear of, as one line.
 * Lines of other sources beside RTR lines are fine.
 * @param {IngestResult} result of ingestLines @param {string} input what was read (a path, stdin)
 * @returns {string | undefined}
 */
export function noGorouterLine(result, input) {
  const onlyOtherLines = [...result.skipped.keys()].every((reason) => EXPECTED_SKIPS.lines.includes(reason));
  if (result.records > 0 || !onlyOtherLines) return undefined;
  const lines = result.lines ?? 0;
  const example = result.firstLine
    ? `, e.g. line ${result.firstLine.number}: ${JSON.stringify(result.firstLine.text)}`
    : lines
      ? ', all blank'
      : '';
  return (
    `no gorouter access-log line found in ${input} (${lines} line${lines === 1 ? '' : 's'} looked at${example}); ` +
    'give a gorouter access log or `cf logs APP --recent` output'
  );
}

/** @param {IngestResult} result @param {readonly string[]} [expected] */
export function skippedShare(result, expected = EXPECTED_SKIPS.documents) {
  const counted = [...result.skipped].filter(([reason]) => !expected.includes(reason)).sort((a, b) => b[1] - a[1]);
  const skipped = counted.reduce((sum, [, n]) => sum + n, 0);
  return { counted, skipped, ratio: skipped / (result.records + skipped || 1) };
}

/**
 * More skipped than `maxRatio` allows?
 * @param {IngestResult} result @param {number} maxRatio @param {readonly string[]} [expected]
 * @returns {SkippedVerdict | undefined}
 */
export function skippedVerdict(result, maxRatio, expected) {
  const { counted, skipped, ratio } = skippedShare(result, expected);
  if (!skipped || ratio <= maxRatio) return undefined;
  const [reason, count] = counted[0];
  return { ratio, skipped, reason, count, example: result.examples?.get(reason) };
}

/** The verdict as one line for a user. @param {SkippedVerdict} v @param {number} maxRatio */
export function describeVerdict(v, maxRatio) {
  const example = v.example ? `, e.g. ${v.example.id} (looked in ${v.example.lookedIn.join(', ') || 'nothing'})` : '';
  return (
    `${v.skipped} records skipped (${(v.ratio * 100).toFixed(2)} % > ${maxRatio * 100} %); ` +
    `most for ${v.reason} (${v.count})${example}`
  );
}

/**
 * Adds what one ingest read to a running total (records, skipped by reason, first examples).
 * @param {IngestResult} into @param {IngestResult} from
 */
export function addResult(into, from) {
  into.records += from.records;
  into.inserted += from.inserted;
  into.cleaned = (into.cleaned ?? 0) + (from.cleaned ?? 0);
  addCounts(into.skipped, from.skipped);
  if (into.examples && from.examples) addFirsts(into.examples, from.examples);
}

/** @param {Map<string, number>} into @param {Map<string, number>} from */
function addCounts(into, from) {
  for (const [reason, n] of from) into.set(reason, (into.get(reason) ?? 0) + n);
}

/** @template T @param {Map<string, T>} into @param {Map<string, T>} from */
function addFirsts(into, from) {
  for (const [reason, example] of from) if (!into.has(reason)) into.set(reason, example);
}

/**
 * Iterates `source` one page ahead: the next page is fetched while the caller writes this one.
 * @template T @param {AsyncIterable<T>} source @returns {AsyncGenerator<T>}
 */
export async function* prefetchOne(source) {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = iterator.next();
      // A failed prefetch is reported when it is awaited; until then it must not count as unhandled.
      next.catch(() => {});
      yield current.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * `source`, counting how long each of its pages took to produce into `busy.source` (with
 * prefetchOne, that time overlaps the writes).
 * @template T @param {AsyncIterable<T>} source @param {{ source: number }} busy @returns {AsyncGenerator<T>}
 */
async function* timed(source, busy) {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const started = performance.now();
      const next = await iterator.next();
      busy.source += performance.now() - started;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * Retries of a window whose search context is gone (an expired point in time, an interrupted
 * scroll); each resumes from the last committed page.
 */
const CONTEXT_REOPENS = 3;
const CONTEXT_LOST = new Set(['pit_expired', 'search_context_lost']);

/**
 * Pages written at once. Page n is copied while page n-1 commits, page n+1 is mapped and n+2 is
 * read (search.js reads one page ahead). Page n's rows go into the table only once page n-1's are
 * in (copyAfter), and its transaction commits only after n-1's (commitAfter): a request logged
 * twice across the two pages makes n wait for n-1, never both for each other; the checkpoint
 * still moves only past committed rows.
 */
const WRITES_IN_FLIGHT = 2;

/**
 * Reads [from, to) and stores it. With `checkpoint`, the position moves after every committed
 * page and lands on `to` at the end.
 * @param {import('../sources/router-logs/index.js').RouterLogSource} source
 * @param {{ from: string, to: string, checkpoint?: string, signal?: AbortSignal }} window
 * @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestWindow(source, window, deps) {
  /** @type {IngestResult} */
  const result = {
    records: 0,
    inserted: 0,
    cleaned: 0,
    skipped: new Map(),
    examples: new Map(),
    documents: 0,
    from: window.from,
    to: window.to,
  };
  let position = window.from;
  const writePage = deps.writePage ?? createPageWriter(deps.pool);
  const busyMs = { source: 0, write: 0, wall: 0 };
  const started = performance.now();
  await retry(
    async () => {
      const pages = timed(
        source.readWindow(
          { from: position, to: window.to, signal: window.signal },
          { encode: (records, count) => encodeRecords('router_request', records, count) },
        ),
        busyMs,
      );
      const writes = orderedWrites(writePage, WRITES_IN_FLIGHT);
      try {
        for await (const page of prefetchOne(pages)) {
          const checkpoint = window.checkpoint
            ? { source: window.checkpoint, position: page.lastTimestamp }
            : undefined;
          const writeStarted = performance.now();
          const { records, encoded } = page;
          await writes.write(
            { kind: 'router_request', records, encoded, checkpoint, countOnly: !deps.metrics },
            (inserted) => {
              busyMs.write += performance.now() - writeStarted;
              deps.metrics?.write(inserted.records);
              result.records += page.encoded?.rows ?? page.records.length;
              result.inserted += inserted.count;
              result.cleaned = (result.cleaned ?? 0) + (inserted.cleaned ?? 0);
              result.documents = (result.documents ?? 0) + page.documents;
              addCounts(result.skipped, page.skipped);
              addFirsts(/** @type {Map<string, any>} */ (result.examples), page.examples);
              position = page.lastTimestamp;
            },
          );
        }
        await writes.drain();
      } finally {
        // A failed read or write: the writes in flight end (committed or rolled back) before a retry
        // resumes from `position`, the last committed page.
        await writes.settled();
      }
    },
    {
      backoff: { retries: CONTEXT_REOPENS, baseDelayMs: 0, maxDelayMs: 0 },
      retryable: (err) => CONTEXT_LOST.has(/** @type {any} */ (err)?.reason),
      onRetry: ({ err }) => {
        const reason = /** @type {any} */ (err).reason;
        deps.warn?.(reason, `search context lost (${reason}); reading again from ${position}`);
      },
    },
  );
  busyMs.wall = performance.now() - started;
  result.busyMs = busyMs;
  warnSkipped(result.skipped, 'router-log documents', deps.warn);
  if (window.checkpoint) {
    const checkpoint = { source: window.checkpoint, position: window.to };
    await writePage({ kind: 'router_request', records: [], checkpoint });
  }
  return result;
}

/**
 * The next increment: from the checkpoint (or now - delay - lookback) to now - delay.
 * @param {import('../sources/router-logs/index.js').RouterLogSource} source
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
 * (constant memory whatever the size).
 * @param {NodeJS.ReadableStream} input
 * @param {{ appName?: string, correlationHeader: string, batchSize?: number }} options
 * @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestLines(input, options, deps) {
  return storeLines(textLines(readline.createInterface({ input, crlfDelay: Infinity })), options, deps);
}

/** @param {AsyncIterable<string>} lines @returns {AsyncGenerator<{ text: string }>} */
async function* textLines(lines) {
  for await (const text of lines) yield { text };
}

/**
 * The next increment of a gorouter log file that keeps growing: the complete lines after the
 * position kept in ingest_checkpoints (`router-log-file:<absolute path>` -> `<inode>:<byte offset>:
 * <fingerprint of the first bytes>`), committed batch by batch with the offset reached. Another
 * inode, a file shorter than the offset, or other first bytes (copy-and-truncate) is a rotated
 * file: read from its start (file-position.js).
 * @param {string} file
 * @param {{ appName?: string, correlationHeader: string, batchSize?: number }} options
 * @param {IngestDeps} deps
 * @returns {Promise<IngestResult>}
 */
export async function ingestFileIncrement(file, options, deps) {
  const source = `router-log-file:${path.resolve(file)}`;
  const { size, offset, position } = await resumePosition(file, await readCheckpoint(deps.pool, source));
  if (size === offset) return { records: 0, inserted: 0, skipped: new Map() };
  return storeLines(completeLines(file, offset, size), options, deps, { source, position });
}

/**
 * The newline-terminated lines in [start, end) of a file, each with the offset just after it; a
 * last line still being written is left for the next read.
 * @param {string} file @param {number} start @param {number} end
 * @returns {AsyncGenerator<{ text: string, end: number }>}
 */
async function* completeLines(file, start, end) {
  let position = start;
  /** @type {Buffer} */
  let rest = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { start, end: end - 1 })) {
    let buffer = Buffer.concat([rest, /** @type {Buffer} */ (chunk)]);
    for (let newline = buffer.indexOf(10); newline >= 0; newline = buffer.indexOf(10)) {
      position += newline + 1;
      yield { text: buffer.subarray(0, newline).toString('utf8'), end: position };
      buffer = buffer.subarray(newline + 1);
    }
    rest = buffer;
  }
}

/**
 * Parses lines and stores the router requests in batches; with `checkpoint`, each batch commits
 * the position after its last line in the same transaction.
 * @param {AsyncIterable<{ text: string, end?: number }>} lines
 * @param {{ appName?: string, correlationHeader: string, batchSize?: number }} options
 * @param {IngestDeps} deps
 * @param {{ source: string, position: (end: number) => string }} [checkpoint]
 * @returns {Promise<IngestResult>}
 */
async function storeLines(lines, options, deps, checkpoint) {
  const correlationField = headerLogField(options.correlationHeader);
  const batchSize = options.batchSize ?? 5000;
  /** @type {IngestResult} */
  const result = { records: 0, inserted: 0, cleaned: 0, lines: 0, skipped: new Map(), examples: new Map() };
  /** @type {import('../sources/router-logs/gorouter.js').RouterRequest[]} */
  let batch = [];
  /** @type {number | undefined} */
  let position;
  let committed = position;
  const writePage = deps.writePage ?? createPageWriter(deps.pool);
  /** @type {Map<string, string>} */
  const names = new Map();
  const flush = async () => {
    if (!batch.length && position === committed) return;
    if (!options.appName && deps.appNames) await nameApps(batch, names, deps.appNames);
    const reached =
      checkpoint && position !== undefined
        ? { source: checkpoint.source, position: checkpoint.position(position) }
        : undefined;
    const inserted = await writePage({
      kind: 'router_request',
      records: batch,
      checkpoint: reached,
      countOnly: !deps.metrics,
    });
    deps.metrics?.write(inserted.records);
    result.inserted += inserted.count;
    result.cleaned = (result.cleaned ?? 0) + (inserted.cleaned ?? 0);
    batch = [];
    committed = position;
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    position = line.end;
    if (line.text.trim() === '') continue;
    result.firstLine ??= {
      number: lineNumber,
      text: line.text.length > LINE_EXAMPLE_CHARS ? `${line.text.slice(0, LINE_EXAMPLE_CHARS)}…` : line.text,
    };
    const parsed = parseGorouterLine(line.text, { correlationField });
    if (!parsed.ok) {
      // Other log sources in `cf logs` output are expected, not errors.
      result.skipped.set(parsed.reason, (result.skipped.get(parsed.reason) ?? 0) + 1);
      if (!result.examples?.has(parsed.reason))
        result.examples?.set(parsed.reason, { id: `line ${lineNumber}`, lookedIn: ['the whole line'] });
      continue;
    }
    if (options.appName) parsed.record.appName = options.appName;
    batch.push(parsed.record);
    result.records += 1;
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  result.lines = lineNumber;
  warnSkipped(result.skipped, 'lines', deps.warn);
  return result;
}

/**
 * Names the apps of records that carry only the app guid, asking `appNames` once per guid.
 * @param {import('../sources/router-logs/gorouter.js').RouterRequest[]} records
 * @param {Map<string, string>} known guid -> name, filled as guids are resolved ('' = no such app)
 * @param {(guids: string[]) => Promise<Map<string, string>>} appNames
 */
async function nameApps(records, known, appNames) {
  const unknown = [
    ...new Set(records.filter((r) => !r.appName && r.appGuid && !known.has(r.appGuid)).map((r) => r.appGuid)),
  ];
  if (unknown.length) {
    const found = await appNames(/** @type {string[]} */ (unknown));
    for (const guid of unknown) known.set(/** @type {string} */ (guid), found.get(/** @type {string} */ (guid)) ?? '');
  }
  for (const record of records)
    if (!record.appName && record.appGuid) record.appName = known.get(record.appGuid) || null;
}

/** @param {string} path a file, or - for stdin */
export function openLines(path) {
  return path === '-' ? process.stdin : fs.createReadStream(path);
}
