// Judging what an ingest skipped: the share of records lost, the verdict past --max-skipped-ratio
// (or INGEST_MAX_SKIPPED_RATIO), and the one line a user reads about it.
import { EXPECTED_SKIPS } from '../../core/reason-codes.js';
import { addCounts, addFirsts } from './pages.js';

/**
 * @typedef {object} IngestResult
 * @property {number} records records read and well-formed
 * @property {number} inserted rows new in PostgreSQL
 * @property {Map<string, number>} skipped by reason
 * @property {number} [cleaned] records stored with text cleaned (0x00, bytes not UTF-8: U+FFFD)
 * @property {Map<string, import('../../core/types.js').SkippedExample>} [examples] the first
 *   skipped document (or line) of each reason
 * @property {number} [documents] documents the window held (search only)
 * @property {number} [lines] lines read (file or stdin only)
 * @property {{ number: number, text: string }} [firstLine] the first line that is not blank, cut to
 *   LINE_EXAMPLE_CHARS (file or stdin only)
 * @property {string} [from]
 * @property {string} [to]
 * @property {{ source: number, write: number, wall: number }} [busyMs] search only: time each stage
 *   was busy (reading + parsing + encoding pages, writing pages; they overlap) and the whole window took
 */

/**
 * @typedef {object} SkippedVerdict why an ingest skipped too much
 * @property {number} ratio skipped / (read + skipped)
 * @property {number} skipped
 * @property {string} reason the reason most records were skipped for
 * @property {number} count records skipped for that reason
 * @property {import('../../core/types.js').SkippedExample | undefined} example
 */

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
