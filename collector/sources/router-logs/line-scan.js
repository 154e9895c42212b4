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

/** `[A-Za-z_][A-Za-z0-9_-]{0,78}:` at `at`: the index of the colon, or -1. @param {string} text @param {number} at */
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

/** Where the last value read by readValueAt ended, and the key wantedAt found (its colon). */
let valueEnd = 0;
let keyEnd = -1;

/**
 * The value at `at` in a gorouter line's tail: quoted (escapes undone) or up to the next space; ''
 * unless `keep`. Null when a quote is left open (a truncated line). Sets valueEnd.
 * @param {string} tail @param {number} at @param {boolean} keep
 * @param {number} backslash the first backslash at or after `at`, -1 when there is none
 * @returns {string | null}
 */
function readValueAt(tail, at, keep, backslash) {
  const n = tail.length;
  let i = at;
  if (tail.charCodeAt(i) === 34) {
    // Most values hold no escape: one slice (bench/ingest.bench.js profile).
    const close = tail.indexOf('"', i + 1);
    const escape = close < 0 ? -1 : backslash;
    if (close >= 0 && (escape < 0 || escape > close)) {
      valueEnd = close + 1;
      return keep ? tail.slice(i + 1, close) : '';
    }
    let out = '';
    i += 1;
    while (i < n && tail[i] !== '"') {
      if (tail[i] === '\\' && i + 1 < n) i += 1;
      out += tail[i];
      i += 1;
    }
    valueEnd = i + 1;
    return i >= n ? null : out;
  }
  const space = tail.indexOf(' ', i);
  valueEnd = space < 0 ? n : space;
  return keep ? tail.slice(i, valueEnd) : '';
}

/**
 * The first backslash at or after `at`, given the one found before (-1: none left): a line is searched
 * for backslashes once, not once per value.
 * @param {string} tail @param {number} at @param {number} found
 */
const backslashFrom = (tail, at, found) => (found >= 0 && found < at ? tail.indexOf('\\', at) : found);

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
  let backslash = tail.indexOf('\\');
  while (i < n) {
    while (i < n && tail.charCodeAt(i) === 32) i += 1;
    if (i >= n) break;
    // A `key:` of at most 80 characters.
    const colon = keyColon(tail, i);
    const key = colon >= 0 ? tail.slice(i, colon).toLowerCase() : undefined;
    const keep = key === undefined ? !wanted : !wanted || wanted.has(key);
    const at = colon >= 0 ? colon + 1 : i;
    backslash = backslashFrom(tail, at, backslash);
    const value = readValueAt(tail, at, keep, backslash);
    i = valueEnd;
    if (value === null) {
      truncated = true;
      break;
    }
    if (key === undefined) {
      if (!wanted) positional.push(value);
    } else if (keep) fields.set(key, value);
  }
  return { positional, fields, truncated };
}

/**
 * The keys a gorouter line's record is made of, by slot, compiled once for scanWanted: by their
 * first character, those that can be a key at all (keyColon's form).
 * @typedef {{ keys: readonly string[], slotOf: ReadonlyMap<string, number>,
 *   byFirst: ReadonlyArray<ReadonlyArray<[key: string, slot: number]> | undefined> }} WantedKeys
 */

const KEY_FORM = /^[a-z_][a-z0-9_-]{0,78}$/;

/** @param {readonly string[]} keys lower-case @returns {WantedKeys} */
export function wantedKeys(keys) {
  /** @type {Array<Array<[string, number]> | undefined>} */
  const byFirst = [];
  const slotOf = new Map();
  keys.forEach((key, slot) => {
    if (slotOf.has(key)) return;
    slotOf.set(key, slot);
    if (KEY_FORM.test(key)) (byFirst[key.charCodeAt(0)] ??= []).push([key, slot]);
  });
  return { keys, slotOf, byFirst };
}

/**
 * scanFields(tail, wanted) as an array by slot: a wanted key is compared where it stands in the
 * line; another key is sliced (and lower-cased) only when it holds an upper-case letter.
 * @param {string} tail @param {WantedKeys} wanted
 * @param {number} [from] where in `tail` to start: a line is scanned where it stands, not sliced
 * @returns {Array<string | undefined>} the last value of each wanted key, undefined when the key is absent
 */
export function scanWanted(tail, { keys, slotOf, byFirst }, from = 0) {
  /** @type {Array<string | undefined>} */
  const values = new Array(keys.length).fill(undefined);
  let i = from;
  const n = tail.length;
  let backslash = tail.indexOf('\\', from);
  while (i < n) {
    while (i < n && tail.charCodeAt(i) === 32) i += 1;
    if (i >= n) break;
    let slot = wantedAt(tail, i, byFirst);
    let colon = keyEnd;
    if (slot < 0) {
      colon = keyColon(tail, i);
      slot = colon < 0 ? -1 : upperCaseSlot(tail, i, colon, slotOf);
    }
    const at = colon >= 0 ? colon + 1 : i;
    backslash = backslashFrom(tail, at, backslash);
    const value = readValueAt(tail, at, slot >= 0, backslash);
    i = valueEnd;
    if (value === null) break;
    if (slot >= 0) values[slot] = value;
  }
  return values;
}

/**
 * The slot of the wanted key (and colon) at `start`, or -1; sets keyEnd.
 * @param {string} tail @param {number} start @param {WantedKeys['byFirst']} byFirst
 */
function wantedAt(tail, start, byFirst) {
  const candidates = byFirst[tail.charCodeAt(start)];
  if (candidates)
    for (let k = 0; k < candidates.length; k++) {
      const [key, slot] = candidates[k];
      if (tail.charCodeAt(start + key.length) === 58 && tail.startsWith(key, start)) {
        keyEnd = start + key.length;
        return slot;
      }
    }
  keyEnd = -1;
  return -1;
}

/**
 * The slot of a key in [start, end) that is no wanted key as it is written: its lower-case form's.
 * @param {string} tail @param {number} start @param {number} end @param {WantedKeys['slotOf']} slotOf
 */
function upperCaseSlot(tail, start, end, slotOf) {
  for (let j = start; j < end; j++) {
    const c = tail.charCodeAt(j);
    if (c >= 65 && c <= 90) return slotOf.get(tail.slice(start, end).toLowerCase()) ?? -1;
  }
  return -1;
}
