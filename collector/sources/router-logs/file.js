// Sources `router-log-file` and stdin: gorouter lines, or `cf logs APP --recent` output, as pages of
// router requests (core/types.js PagedSource), batch by batch (constant memory whatever the size).
// A followed file keeps its position in ingest_checkpoints (`router-log-file:<absolute path>` ->
// `<inode>:<byte offset>:<fingerprint of the first bytes>`); another inode, a file shorter than the
// offset, or other first bytes (copy-and-truncate) is a rotated file: read from its start.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { EXPECTED_SKIPS } from '../../../core/reason-codes.js';
import { LINE_EXAMPLE_CHARS, LINE_PAGE_ROWS } from '../../../core/tunables.js';
import { headerLogField } from '../gorouter/correlation-ids.js';
import { resumePosition } from './file-position.js';
import { parseGorouterLine } from '../gorouter/parse.js';

/** @typedef {import('../../../core/types.js').SourcePage} SourcePage */

/**
 * @typedef {object} LineOptions
 * @property {string} [appName] every request's app name (--app)
 * @property {string} correlationHeader
 * @property {number} [batchSize] router requests per page
 * @property {(guids: string[]) => Promise<Map<string, string>>} [appNames] app names by guid, for lines
 *   that carry only the guid (the Cloud Controller)
 */

/**
 * A stream of lines (stdin, a file read whole): no checkpoint.
 * @param {NodeJS.ReadableStream} input @param {LineOptions} options
 * @returns {import('../../../core/types.js').PagedSource}
 */
export function createLineSource(input, options) {
  return {
    name: 'router-log-lines',
    readPages: () => linePages(textLines(readline.createInterface({ input, crlfDelay: Infinity })), options),
  };
}

/**
 * A gorouter log file that keeps growing: each read takes the complete lines after the checkpoint.
 * @param {string} file @param {LineOptions} options
 * @returns {FollowedSource}
 */
export function createRouterLogFileSource(file, options) {
  return {
    name: 'router-log-file',
    checkpointKey: `router-log-file:${path.resolve(file)}`,
    async *readPages(checkpoint) {
      const { size, offset, position } = await resumePosition(file, checkpoint);
      if (size === offset) return;
      yield* linePages(completeLines(file, offset, size), options, position);
    },
  };
}

/**
 * ROUTER_LOG_FILE followed as it grows: each run reads the complete lines after the position it reached last time.
 * @param {import('../../config/index.js').Config} config
 * @returns {import('../../../core/types.js').ScheduledPagedSource}
 */
export function fileJobSource(config) {
  const file = /** @type {string} */ (config.routerLogFile.path);
  const options = { appName: config.routerLogFile.appName, correlationHeader: config.correlationHeader };
  return {
    name: 'router-log-file',
    reads: async () => [
      {
        source: createRouterLogFileSource(file, options),
        describeSkip: (reason, n) => `${n} lines skipped: ${reason}`,
      },
    ],
    judgedSkips: EXPECTED_SKIPS.lines,
  };
}

/** @typedef {import('../../../core/types.js').PagedSource & { checkpointKey: string }} FollowedSource */

/** @param {AsyncIterable<string>} lines @returns {AsyncGenerator<{ text: string, end?: number }>} */
async function* textLines(lines) {
  for await (const text of lines) yield { text };
}

/**
 * The newline-terminated lines in [start, end) of a file, each with the offset just after it; a
 * last line still being written is left for the next read.
 * @param {string} file @param {number} start @param {number} end
 * @returns {AsyncGenerator<{ text: string, end?: number }>}
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
 * Parses lines into pages of router requests; with `position`, each page carries the checkpoint
 * after its last line.
 * @param {AsyncIterable<{ text: string, end?: number }>} lines @param {LineOptions} options
 * @param {(end: number) => string} [position]
 * @returns {AsyncGenerator<SourcePage>}
 */
async function* linePages(lines, options, position) {
  const correlationField = headerLogField(options.correlationHeader);
  const batchSize = options.batchSize ?? LINE_PAGE_ROWS;
  /** @type {Map<string, string>} */
  const names = new Map();
  let page = emptyPage();
  let lineNumber = 0;
  /** @type {{ number: number, text: string } | undefined} */
  let firstLine;
  /** @type {number | undefined} */
  let end;
  const finish = async () => {
    if (!options.appName && options.appNames) await nameApps(page.records, names, options.appNames);
    if (position && end !== undefined) page.position = position(end);
    const done = page;
    page = emptyPage();
    return done;
  };
  for await (const line of lines) {
    lineNumber += 1;
    page.read += 1;
    end = line.end;
    if (line.text.trim() === '') continue;
    if (!firstLine) {
      const text = line.text.length > LINE_EXAMPLE_CHARS ? `${line.text.slice(0, LINE_EXAMPLE_CHARS)}…` : line.text;
      page.firstLine = firstLine = { number: lineNumber, text };
    }
    const parsed = parseGorouterLine(line.text, { correlationField });
    if (!parsed.ok) {
      // Other log sources in `cf logs` output are expected, not errors.
      page.skipped.set(parsed.reason, (page.skipped.get(parsed.reason) ?? 0) + 1);
      if (!page.examples?.has(parsed.reason))
        page.examples?.set(parsed.reason, { id: `line ${lineNumber}`, lookedIn: ['the whole line'] });
      continue;
    }
    if (options.appName) parsed.record.appName = options.appName;
    page.records.push(parsed.record);
    if (page.records.length >= batchSize) yield await finish();
  }
  // The rest, and the position past the last lines even when none of them was a request.
  if (page.read > 0) yield await finish();
}

/** @returns {SourcePage & { records: import('../gorouter/parse.js').RouterRequest[] }} */
function emptyPage() {
  return { kind: 'router_request', records: [], skipped: new Map(), examples: new Map(), read: 0 };
}

/**
 * Names the apps of records that carry only the app guid, asking `appNames` once per guid.
 * @param {import('../gorouter/parse.js').RouterRequest[]} records
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
