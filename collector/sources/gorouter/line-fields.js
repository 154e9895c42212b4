// The `key:value` fields that follow a gorouter line's head, read in one pass. The wanted keys are
// matched in a typed-array copy of the line's UTF-16 units: V8 reads a typed array's elements in a
// loop several times faster than a string's characters (charCodeAt, startsWith).

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

/** Where the last value read by readValueAt ended. */
let valueEnd = 0;

/**
 * The value at `at` in a gorouter line's tail: quoted (escapes undone) or up to the next space; ''
 * unless `keep`. Null when a quote is left open (a truncated line). Sets valueEnd.
 * @param {string} tail @param {number} at @param {boolean} keep
 * @param {number} backslash the first backslash at or after `at`, -1 when there is none
 * @returns {string | null}
 */
function readValueAt(tail, at, keep, backslash) {
  if (tail.charCodeAt(at) === 34) {
    // Most values hold no escape: one slice (bench/ingest.bench.js profile).
    const close = tail.indexOf('"', at + 1);
    const escape = close < 0 ? -1 : backslash;
    if (close >= 0 && (escape < 0 || escape > close)) {
      valueEnd = close + 1;
      return keep ? tail.slice(at + 1, close) : '';
    }
    return readEscaped(tail, at);
  }
  const space = tail.indexOf(' ', at);
  valueEnd = space < 0 ? tail.length : space;
  return keep ? tail.slice(at, valueEnd) : '';
}

/**
 * A quoted value at `at` holding escapes, or left open (null). Sets valueEnd.
 * @param {string} tail @param {number} at
 */
function readEscaped(tail, at) {
  const n = tail.length;
  let out = '';
  let i = at + 1;
  while (i < n && tail[i] !== '"') {
    if (tail[i] === '\\' && i + 1 < n) i += 1;
    out += tail[i];
    i += 1;
  }
  valueEnd = i + 1;
  return i >= n ? null : out;
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
 * first character, those that can be a key at all (keyColon's form), each with its units.
 * @typedef {{ keys: readonly string[], slotOf: ReadonlyMap<string, number>,
 *   byFirst: ReadonlyArray<ReadonlyArray<WantedKey> | undefined> }} WantedKeys
 * @typedef {{ units: Uint16Array, slot: number }} WantedKey
 */

const KEY_FORM = /^[a-z_][a-z0-9_-]{0,78}$/;

/** @param {readonly string[]} keys lower-case @returns {WantedKeys} */
export function wantedKeys(keys) {
  /** @type {Array<WantedKey[] | undefined>} */
  const byFirst = [];
  const slotOf = new Map();
  keys.forEach((key, slot) => {
    if (slotOf.has(key)) return;
    slotOf.set(key, slot);
    const units = Uint16Array.from(key, (c) => c.charCodeAt(0));
    if (KEY_FORM.test(key)) (byFirst[key.charCodeAt(0)] ??= []).push({ units, slot });
  });
  return { keys, slotOf, byFirst };
}

/** The units of the line being scanned, grown as lines need. */
let units = new Uint16Array(2048);
/** The same memory as bytes, for Buffer's native UTF-16 copy (little-endian machines). */
let unitBytes = Buffer.from(units.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** `text`'s UTF-16 units in `units` (valid below text.length only). @param {string} text */
export function unitsOf(text) {
  const n = text.length;
  if (units.length < n) {
    units = new Uint16Array(2 * n);
    unitBytes = Buffer.from(units.buffer);
  }
  if (LITTLE_ENDIAN) unitBytes.write(text, 0, 'utf16le');
  else for (let i = 0; i < n; i++) units[i] = text.charCodeAt(i);
  return units;
}

/**
 * scanFields(tail, wanted) as an array by slot: each key's characters are read once (its form, its
 * case) and a wanted key compared unit by unit; another key is sliced (and lower-cased) only when
 * it holds an upper-case letter.
 * @param {string} tail @param {WantedKeys} wanted
 * @param {number} [from] where in `tail` to start: a line is scanned where it stands, not sliced
 * @param {Uint16Array} [u] the units of `tail` (unitsOf), when the caller has them
 * @returns {Array<string | undefined>} the last value of each wanted key, undefined when the key is absent
 */
export function scanWanted(tail, { keys, slotOf, byFirst }, from = 0, u = unitsOf(tail)) {
  /** @type {Array<string | undefined>} */
  const values = new Array(keys.length).fill(undefined);
  const n = tail.length;
  let i = from;
  let backslash = tail.indexOf('\\', from);
  while (i < n) {
    const first = u[i];
    if (first === 32) {
      i += 1;
      continue;
    }
    let slot = wantedAt(u, i, n, byFirst);
    let at = i;
    if (slot >= 0) at = keyEnd + 1;
    else {
      const colon = keyColonIn(u, i, n);
      if (colon >= 0) {
        at = colon + 1;
        slot = keyUpper ? (slotOf.get(tail.slice(i, colon).toLowerCase()) ?? -1) : -1;
      }
    }
    backslash = backslashFrom(tail, at, backslash);
    const value = readValueAt(tail, at, slot >= 0, backslash);
    i = valueEnd;
    if (value === null) break;
    if (slot >= 0) values[slot] = value;
  }
  return values;
}

/** Where the key wantedAt found ends (its colon), and whether the key keyColonIn read holds upper case. */
let keyEnd = -1;
let keyUpper = false;

/**
 * The slot of the wanted key (and colon) at `start`, compared unit by unit, or -1; sets keyEnd.
 * @param {Uint16Array} u @param {number} start @param {number} n @param {WantedKeys['byFirst']} byFirst
 */
function wantedAt(u, start, n, byFirst) {
  const candidates = byFirst[u[start]];
  if (candidates === undefined) return -1;
  for (let k = 0; k < candidates.length; k++) {
    const key = candidates[k].units;
    const end = start + key.length;
    if (end >= n || u[end] !== 58) continue;
    let m = 1;
    while (m < key.length && u[start + m] === key[m]) m += 1;
    if (m === key.length) {
      keyEnd = end;
      return candidates[k].slot;
    }
  }
  return -1;
}

/**
 * keyColon over units: the index of the colon of the key at `start`, or -1; sets keyUpper.
 * @param {Uint16Array} u @param {number} start @param {number} n
 */
function keyColonIn(u, start, n) {
  const first = u[start];
  keyUpper = first >= 65 && first <= 90;
  if (!(keyUpper || (first >= 97 && first <= 122) || first === 95)) return -1;
  const last = Math.min(n, start + 79);
  let j = start + 1;
  for (; j < last; j++) {
    const c = u[j];
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45) continue;
    if (c >= 65 && c <= 90) keyUpper = true;
    else break;
  }
  return j < n && u[j] === 58 ? j : -1;
}
