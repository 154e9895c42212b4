// The parts of a gorouter line read in one pass, character by character: each part ends at the first
// character that cannot belong to it, so there is nothing to backtrack and no match array per line.
// Each function reads exactly what the regular expression in its comment matched.
import { LINE } from '../../../core/reason-codes.js';

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

/** The end of the run of non-space characters (`\S*`) from `at`. @param {string} text @param {number} at */
export function tokenEnd(text, at) {
  let i = at;
  while (i < text.length && !isSpace(text.charCodeAt(i))) i += 1;
  return i;
}

/** The end of the run of space characters (`\s*`) from `at`. @param {string} text @param {number} at */
export function spaceEnd(text, at) {
  let i = at;
  while (i < text.length && isSpace(text.charCodeAt(i))) i += 1;
  return i;
}

/**
 * Whether a `cf logs` prefix (`<ts> [<source>...]`) may start the line: a first token, space, then
 * `[`. A gorouter line (`host - [`) never has it, so the prefix's expression runs on few lines.
 * @param {string} text
 */
export function mayHavePrefix(text) {
  const end = tokenEnd(text, spaceEnd(text, 0));
  const next = spaceEnd(text, end);
  return next > end && text.charCodeAt(next) === 91;
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
 * @param {string} text @returns {LineHead | 'not_gorouter' | 'truncated'}
 */
export function readHead(text) {
  const n = text.length;
  const hostEnd = tokenEnd(text, 0);
  if (hostEnd === 0 || !text.startsWith(' - [', hostEnd)) return LINE.NOT_GOROUTER;
  const timeEnd = text.indexOf(']', hostEnd + 4);
  if (timeEnd < 0 || !text.startsWith(' "', timeEnd + 1)) return LINE.TRUNCATED;
  let i = timeEnd + 3;
  for (;;) {
    if (i >= n) return LINE.TRUNCATED;
    const c = text.charCodeAt(i);
    if (c === 34) break;
    if (c === 92) {
      // `\\.`: a backslash and any character but a line terminator.
      const next = text.charCodeAt(i + 1);
      if (i + 1 >= n || next === 10 || next === 13 || next === 0x2028 || next === 0x2029) return LINE.TRUNCATED;
      i += 2;
    } else i += 1;
  }
  const request = text.slice(timeEnd + 3, i);
  if (text.charCodeAt(i + 1) !== 32) return LINE.TRUNCATED;
  /** @type {string[]} */
  const numbers = [];
  let at = i + 2;
  for (let k = 0; k < 3; k++) {
    const end = tokenEnd(text, at);
    if (end === at || (end < n && text.charCodeAt(end) !== 32) || (k < 2 && end === n)) return LINE.TRUNCATED;
    numbers.push(text.slice(at, end));
    at = end < n ? end + 1 : n;
  }
  const time = text.slice(hostEnd + 4, timeEnd);
  return { time, request, status: numbers[0], bytesReceived: numbers[1], bytesSent: numbers[2], end: at };
}

/**
 * `(?:^| )(?:response_time|gorouter_time):[^ "]*$`: the line ends inside a duration, the last thing of
 * it (never so in a whole line: app_id follows), so a number there may be cut short.
 * @param {string} rest
 */
export function endsInDuration(rest) {
  const start = rest.lastIndexOf(' ') + 1;
  if (!rest.startsWith('response_time:', start) && !rest.startsWith('gorouter_time:', start)) return false;
  return rest.indexOf('"', start) < 0;
}

/**
 * `[A-Za-z_][A-Za-z0-9_-]{0,78}:` at `at`: the index of the colon, or -1.
 * @param {string} text @param {number} at
 */
export function keyColon(text, at) {
  const first = text.charCodeAt(at);
  if (!(isLetter(first) || first === 95)) return -1;
  let i = at + 1;
  const last = Math.min(text.length, at + 79);
  while (i < last) {
    const c = text.charCodeAt(i);
    if (!(isLetter(c) || (c >= 48 && c <= 57) || c === 95 || c === 45)) break;
    i += 1;
  }
  return text.charCodeAt(i) === 58 ? i : -1;
}

/** @param {number} c */
const isLetter = (c) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * `^\d{1,15}$`. @param {string} text
 */
export function isDigits(text) {
  const n = text.length;
  if (n < 1 || n > 15) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Splits what follows the user agent: positional tokens (addresses) and `key:value` pairs, quoted
 * or not. A quote left open (a truncated line) ends the scan. With `wanted`, only those keys are
 * kept (and no positional tokens): the others are stepped over without a string of their own.
 * @param {string} tail @param {ReadonlySet<string>} [wanted] lower-case keys
 */
export function scanFields(tail, wanted) {
  /** @type {string[]} */
  const positional = [];
  /** @type {Map<string, string>} */
  const fields = new Map();
  let truncated = false;
  let i = 0;
  const n = tail.length;
  /** @param {boolean} keep @returns {string | null} null when a quote is left open */
  const readValue = (keep) => {
    if (tail.charCodeAt(i) === 34) {
      // Most values hold no escape: one slice (bench/ingest.bench.js profile).
      const close = tail.indexOf('"', i + 1);
      const escape = close < 0 ? -1 : tail.indexOf('\\', i + 1);
      if (close >= 0 && (escape < 0 || escape > close)) {
        const value = keep ? tail.slice(i + 1, close) : '';
        i = close + 1;
        return value;
      }
      let out = '';
      i += 1;
      while (i < n && tail[i] !== '"') {
        if (tail[i] === '\\' && i + 1 < n) i += 1;
        out += tail[i];
        i += 1;
      }
      if (i >= n) {
        truncated = true;
        return null;
      }
      i += 1;
      return out;
    }
    const start = i;
    const space = tail.indexOf(' ', i);
    i = space < 0 ? n : space;
    return keep ? tail.slice(start, i) : '';
  };
  while (i < n) {
    while (i < n && tail.charCodeAt(i) === 32) i += 1;
    if (i >= n) break;
    // A `key:` of at most 80 characters.
    const colon = keyColon(tail, i);
    if (colon >= 0) {
      const key = tail.slice(i, colon).toLowerCase();
      i = colon + 1;
      const keep = !wanted || wanted.has(key);
      const value = readValue(keep);
      if (value === null) break;
      if (keep) fields.set(key, value);
    } else {
      const value = readValue(!wanted);
      if (value === null) break;
      if (!wanted) positional.push(value);
    }
  }
  return { positional, fields, truncated };
}
