// The parts of a gorouter line read in one pass, character by character: each part ends at the first
// character that cannot belong to it, so there is nothing to backtrack and no match array per line.
// Each function reads exactly what the regular expression in its comment matched.
import { LINE } from '../../../core/reason-codes.js';
import { unitsOf } from './line-fields.js';

/**
 * Whether a UTF-16 unit is white space as JavaScript's `\s` and `trim` take it.
 * @param {number} c
 */
export function isSpace(c) {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The end of the run of non-space units (`\S*`) from `at`.
 * @param {Uint16Array} u units (unitsOf) @param {number} n how many are the text's @param {number} at
 */
function tokenEnd(u, n, at) {
  let i = at;
  while (i < n && !isSpace(u[i])) i += 1;
  return i;
}

/** The end of the run of space units (`\s*`) from `at`. @param {Uint16Array} u @param {number} n @param {number} at */
function spaceEnd(u, n, at) {
  let i = at;
  while (i < n && isSpace(u[i])) i += 1;
  return i;
}

/**
 * Whether a `cf logs` prefix (`<ts> [<source>...]`) may start the line: a first token, space, then
 * `[`. A gorouter line (`host - [`) never has it, so the prefix's expression runs on few lines.
 * @param {string} text @param {Uint16Array} [u] its units, when the caller has them
 */
export function mayHavePrefix(text, u = unitsOf(text)) {
  const n = text.length;
  const end = tokenEnd(u, n, spaceEnd(u, n, 0));
  const next = spaceEnd(u, n, end);
  return next > end && next < n && u[next] === 91;
}

/**
 * @typedef {object} LineHead
 * @property {string} time @property {string} request @property {string} status
 * @property {string} bytesReceived @property {string} bytesSent
 * @property {number} end where the rest of the line starts (after the space that follows the head)
 */

/**
 * `^(\S+) - \[([^\]]*)\] "((?:[^"\\]|\\.)*)" (\S+) (\S+) (\S+)(?: |$)` on a trimmed line: the head
 * of a gorouter line, or why there is none (`not_gorouter` unless it starts `host - [`).
 * @param {string} text @param {Uint16Array} [u] its units, when the caller has them
 * @returns {LineHead | 'not_gorouter' | 'truncated'}
 */
export function readHead(text, u = unitsOf(text)) {
  const n = text.length;
  const hostEnd = tokenEnd(u, n, 0);
  // ` - [`
  if (hostEnd === 0 || hostEnd + 3 >= n || u[hostEnd] !== 32 || u[hostEnd + 1] !== 45 || u[hostEnd + 2] !== 32)
    return LINE.NOT_GOROUTER;
  if (u[hostEnd + 3] !== 91) return LINE.NOT_GOROUTER;
  const timeEnd = text.indexOf(']', hostEnd + 4);
  if (timeEnd < 0 || timeEnd + 2 >= n || u[timeEnd + 1] !== 32 || u[timeEnd + 2] !== 34) return LINE.TRUNCATED;
  let i = timeEnd + 3;
  for (;;) {
    if (i >= n) return LINE.TRUNCATED;
    const c = u[i];
    if (c === 34) break;
    if (c === 92) {
      // `\\.`: a backslash and any character but a line terminator.
      if (i + 1 >= n) return LINE.TRUNCATED;
      const next = u[i + 1];
      if (next === 10 || next === 13 || next === 0x2028 || next === 0x2029) return LINE.TRUNCATED;
      i += 2;
    } else i += 1;
  }
  const request = text.slice(timeEnd + 3, i);
  if (i + 1 >= n || u[i + 1] !== 32) return LINE.TRUNCATED;
  const statusEnd = numberEnd(u, n, i + 2, false);
  const receivedEnd = statusEnd < 0 ? -1 : numberEnd(u, n, statusEnd + 1, false);
  const sentEnd = receivedEnd < 0 ? -1 : numberEnd(u, n, receivedEnd + 1, true);
  if (sentEnd < 0) return LINE.TRUNCATED;
  return {
    time: text.slice(hostEnd + 4, timeEnd),
    request,
    status: text.slice(i + 2, statusEnd),
    bytesReceived: text.slice(statusEnd + 1, receivedEnd),
    bytesSent: text.slice(receivedEnd + 1, sentEnd),
    end: sentEnd < n ? sentEnd + 1 : n,
  };
}

/**
 * The end of a head's number at `at` (`\S+`), followed by a space (or, when `last`, the end of the
 * line); -1 when there is none.
 * @param {Uint16Array} u @param {number} n @param {number} at @param {boolean} last
 */
function numberEnd(u, n, at, last) {
  const end = tokenEnd(u, n, at);
  if (end === at || (end < n && u[end] !== 32) || (!last && end === n)) return -1;
  return end;
}

/**
 * `(?:^| )(?:response_time|gorouter_time):[^ "]*$`: the line ends inside a duration, the last thing of
 * it (never so in a whole line: app_id follows), so a number there may be cut short.
 * @param {string} rest
 */
export function endsInDuration(rest) {
  const start = rest.lastIndexOf(' ') + 1;
  const first = rest.charCodeAt(start);
  if (first !== 114 && first !== 103) return false;
  if (!rest.startsWith('response_time:', start) && !rest.startsWith('gorouter_time:', start)) return false;
  return rest.indexOf('"', start) < 0;
}

/** `^\d{1,15}$`. @param {string} text */
export function isDigits(text) {
  const n = text.length;
  if (n < 1 || n > 15) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export { keyColon, scanFields, scanWanted, wantedKeys } from './line-fields.js';
