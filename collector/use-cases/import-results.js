// Importing a load tool's results file into a run: the use case `paasmon import` and `paasmon run
// exec` share (read, check, write, keep the run's figures), below both commands.
import fs from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import { ConfigError } from '../../core/errors.js';
import { importResults } from '../pipeline/import.js';
import { formatNamed, readLoadResults } from '../sources/load-results/index.js';
import { keepRunFigures } from '../run-figures.js';
import { getRun, setRunTool, setRunWindow, startRun } from '../../exporters/postgres/queries/runs.js';

/**
 * The run to import into: an existing one, or a new one made from its spec.
 * @typedef {{ runId?: number, spec?: import('../../exporters/postgres/queries/runs.js').RunSpec }} RunTarget
 */

/** The results file is wrong (unreadable, of no known format, without a request): exit 1, no run made. */
export class ResultsFileError extends Error {}

/**
 * Why a results file cannot be read, in words. @param {string} file @param {unknown} err
 * @returns {Error} "cannot read results file X: ..." (exit 1: the file is wrong, not the configuration)
 */
export function unreadableResults(file, err) {
  const code = /** @type {any} */ (err)?.code;
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : /** @type {any} */ (err)?.message;
  return new ResultsFileError(`cannot read results file ${file}: ${why}`, { cause: err });
}

/** A results file that cannot be read is found before anything starts. @param {string} file */
export function checkResultsFile(file) {
  if (file === '-') return;
  let stat;
  try {
    fs.accessSync(file, fs.constants.R_OK);
    stat = fs.statSync(file);
  } catch (err) {
    throw unreadableResults(file, err);
  }
  if (stat.isDirectory()) throw unreadableResults(file, { code: 'EISDIR' });
}

/** @param {string | undefined} format */
export function checkFormat(format) {
  if (format !== undefined) formatNamed(format);
}

/** @param {string} file @returns {NodeJS.ReadableStream} a read that fails says which file and why */
function openResults(file) {
  checkResultsFile(file);
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  return Readable.from(
    (async function* chunks() {
      try {
        yield* input;
      } catch (err) {
        throw unreadableResults(nameOf(file), err);
      }
    })(),
    { objectMode: false },
  );
}

/** @param {string} file */
const nameOf = (file) => (file === '-' ? 'stdin' : file);

/**
 * The results' format and pages; content of no known format (or none at all) is the file's fault, not the
 * configuration's: "X is not a results file paasmon knows: ...".
 * @param {string} file @param {string | undefined} given --format @param {number | undefined} startedAtMs
 * @param {number} [from] requests sent before it are left out (run exec --warmup)
 */
async function readResults(file, given, startedAtMs, from) {
  try {
    return await readLoadResults(openResults(file), { format: given, startedAtMs, from });
  } catch (err) {
    const variable = err instanceof ConfigError ? err.variable : undefined;
    if (given !== undefined || (variable !== '--format' && variable !== 'FILE')) throw err;
    if (variable === 'FILE')
      throw new ResultsFileError(`${nameOf(file)} holds no requests: it is empty; nothing imported`, { cause: err });
    const why = /** @type {Error} */ (err).message.replace(/^cannot tell the results' format: /, '');
    throw new ResultsFileError(`${nameOf(file)} is not a results file paasmon knows: ${why}`, { cause: err });
  }
}

/**
 * The pages again, once one of them holds a request: nothing is written, no run made, for results without any.
 * @param {AsyncGenerator<import('../sources/load-results/index.js').ResultsPage>} pages @param {string} file
 */
async function withRequests(pages, file) {
  /** @type {import('../sources/load-results/index.js').ResultsPage[]} */
  const read = [];
  for (let next = await pages.next(); !next.done; next = await pages.next()) {
    read.push(next.value);
    if (next.value.records.length === 0 && next.value.warmup === 0) continue;
    return (async function* again() {
      yield* read;
      yield* pages;
    })();
  }
  const skipped = read.flatMap((page) => [...page.skipped]);
  const lines = skipped.reduce((sum, [, n]) => sum + n, 0);
  const example = read.flatMap((page) => [...page.examples.values()])[0];
  const why = lines ? `${lines} lines unreadable (${skipped[0][0]}, e.g. ${example})` : 'only a header, or nothing';
  throw new ResultsFileError(`${nameOf(file)} holds no requests: ${why}; nothing imported`);
}

/**
 * Imports one results file into a run (existing or new); a new run's window is its requests'.
 * @param {import('pg').Pool} pool
 * @param {{ file: string, format?: string, startedAtMs?: number, maxRatio: number,
 *   target: RunTarget, window?: boolean, from?: number, log: import('pino').Logger }} job
 *   window: set a new run's window; from: leave out the requests sent before it
 * @returns {Promise<{ runId: number, format: string, result: import('../pipeline/import.js').ImportResult,
 *   problem?: string }>}
 */
export async function importFile(
  pool,
  { file, format: given, startedAtMs, maxRatio, target, window = true, from, log },
) {
  const { format, tool, pages: all } = await readResults(file, given, startedAtMs, from);
  const pages = await withRequests(all, file);
  let runId = target.runId;
  if (runId !== undefined && !(await getRun(pool, runId))) {
    throw new Error(`run ${runId} does not exist (paasmon run list shows the runs)`);
  }
  runId ??= await startRun(
    pool,
    /** @type {import('../../exporters/postgres/queries/runs.js').RunSpec} */ (target.spec),
  );
  await setRunTool(pool, runId, tool);
  const result = await importResults(pages, { runId, worker: `${tool}@${os.hostname()}` }, { pool });
  if (target.spec && window && result.firstSentMs !== undefined && result.lastDoneMs !== undefined)
    await setRunWindow(pool, runId, new Date(result.firstSentMs), new Date(result.lastDoneMs));
  // Into a run that has ended (a new one has now): its figures as of this import.
  await keepRunFigures(pool, runId, log);
  return { runId, format, result, problem: skippedProblem(result, maxRatio) };
}

/**
 * @param {import('../pipeline/import.js').ImportResult} result @param {number} maxRatio
 * @returns {string | undefined}
 */
function skippedProblem(result, maxRatio) {
  const counted = [...result.skipped].sort((a, b) => b[1] - a[1]);
  const skipped = counted.reduce((sum, [, n]) => sum + n, 0);
  const ratio = skipped / (result.records + skipped || 1);
  if (!skipped || ratio <= maxRatio) return undefined;
  const [reason, count] = counted[0];
  return (
    `${skipped} lines unreadable (${(ratio * 100).toFixed(2)} % > ${maxRatio * 100} %, --max-skipped-ratio); ` +
    `most for ${reason} (${count}), e.g. ${result.examples.get(reason)}`
  );
}

/**
 * The summary line of an import.
 * @param {Awaited<ReturnType<typeof importFile>>} done @param {string} file
 */
export function describeImport({ runId, format, result }, file) {
  const skipped = result.skipped.size
    ? `skipped: ${[...result.skipped].map(([r, n]) => `${r}=${n} (e.g. ${result.examples.get(r)})`).join(', ')}`
    : 'skipped: none';
  return (
    `${result.records} requests read from ${file === '-' ? 'stdin' : file} (${format}) into run ${runId}, ` +
    `${result.inserted} new rows, ${result.withIds} with the tool's correlation ids; ${skipped}`
  );
}
