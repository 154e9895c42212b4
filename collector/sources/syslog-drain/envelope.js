// Pure: what the drain needs of one RFC 5424 message, read in one pass by index: the same checks as
// a full RFC 5424 parse (the tests' reference, parseSyslogMessage), without header captures and
// structured-data maps (garbage made per message on the intake's one thread). Only the fields a
// router request uses are sliced.
import { DRAIN } from '../../../core/reason-codes.js';
import { isSpace } from '../gorouter/line-scan.js';

/**
 * @typedef {object} SyslogEnvelope
 * @property {number} hostname [start, end) of the HOSTNAME field
 * @property {number} hostnameEnd
 * @property {number} appName [start, end) of the APP-NAME field
 * @property {number} appNameEnd
 * @property {number} procId [start, end) of the PROCID field
 * @property {number} procIdEnd
 * @property {string | undefined} tag the wanted structured-data parameter's value, as parseSyslogMessage unescapes it
 * @property {number} message [start, end) of the MSG part, without the agent's trailing newline
 * @property {number} messageEnd
 *
 * @typedef {{ ok: true, envelope: SyslogEnvelope } | { ok: false, reason: string }} EnvelopeResult
 */

/**
 * The end of a header field (`\S+ `) that starts at `from`, or -1.
 * @param {string} text @param {number} from
 */
function fieldEnd(text, from) {
  let i = from;
  while (i < text.length && !isSpace(text.charCodeAt(i))) i += 1;
  return i > from && text.charCodeAt(i) === 32 ? i : -1;
}

/**
 * Where the header's six fields end (`<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID `): the start of each, then
 * the index after the header; undefined when it is not one.
 * @param {string} text @returns {number[] | undefined}
 */
function headerFields(text) {
  if (text.charCodeAt(0) !== 0x3c) return undefined;
  let i = 1;
  while (i <= 3 && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i += 1;
  if (i === 1 || text.charCodeAt(i) !== 0x3e || text.charCodeAt(i + 1) !== 0x31 || text.charCodeAt(i + 2) !== 32) {
    return undefined;
  }
  const starts = [i + 3];
  for (let field = 0; field < 5; field += 1) {
    const end = fieldEnd(text, starts[field]);
    if (end < 0) return undefined;
    starts.push(end + 1);
  }
  return starts;
}

/**
 * The end of a PARAM-VALUE whose opening quote is at `from - 1`: the index of its closing quote, or -1; `wanted`,
 * its unescaped value is set in `out.value`. The escapes `\\"`, `\\\\` and `\\]` keep the character after the
 * backslash; another backslash stays as it is.
 * @param {string} text @param {number} from @param {boolean} wanted
 * @param {{ value: string | undefined, backslash: number }} out also where the next backslash is (-1: none left)
 */
function paramValueEnd(text, from, wanted, out) {
  const quote = text.indexOf('"', from);
  if (quote < 0) return -1;
  if (out.backslash >= 0 && out.backslash < from) out.backslash = text.indexOf('\\', from);
  const { backslash } = out;
  // No backslash in the value (the usual case): one slice, no scan in JavaScript.
  if (backslash < 0 || backslash > quote) {
    if (wanted) out.value = text.slice(from, quote);
    return quote;
  }
  let k = backslash;
  let start = from;
  let unescaped = '';
  for (; k < text.length && text.charCodeAt(k) !== 0x22; k += 1) {
    if (text.charCodeAt(k) === 0x5c && k + 1 < text.length && isEscaped(text.charCodeAt(k + 1))) {
      if (wanted) unescaped += text.slice(start, k);
      k += 1;
      start = k;
    }
  }
  if (k >= text.length) return -1;
  if (wanted) out.value = unescaped + text.slice(start, k);
  return k;
}

/** `"`, `\\` or `]`: the characters a backslash escapes in a PARAM-VALUE. @param {number} code */
const isEscaped = (code) => code === 0x22 || code === 0x5c || code === 0x5d;

/**
 * Structured data from `start`, checked as a full RFC 5424 parse checks it; the value of `param` in the last
 * element `id` (a later element of the same id replaces an earlier one, a later parameter an earlier one).
 * @param {string} text @param {number} start @param {string} id @param {string} param
 * @returns {{ end: number, value: string | undefined } | undefined}
 */
function scanStructuredData(text, start, id, param) {
  if (text.charCodeAt(start) === 0x2d) return { end: start + 1, value: undefined };
  /** @type {{ value: string | undefined, backslash: number }} */
  const found = { value: undefined, backslash: text.indexOf('\\', start) };
  let i = start;
  while (text.charCodeAt(i) === 0x5b) {
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) !== 0x20 && text.charCodeAt(j) !== 0x5d) j += 1;
    const idLength = j - i - 1;
    const wantedElement = idLength === id.length && text.startsWith(id, i + 1);
    if (wantedElement) found.value = undefined;
    while (text.charCodeAt(j) === 0x20) {
      const eq = text.indexOf('="', j + 1);
      if (eq < 0) return undefined;
      const wanted = wantedElement && eq - j - 1 === param.length && text.startsWith(param, j + 1);
      const quote = paramValueEnd(text, eq + 2, wanted, found);
      if (quote < 0) return undefined;
      j = quote + 1;
    }
    if (text.charCodeAt(j) !== 0x5d || idLength === 0) return undefined;
    i = j + 1;
  }
  return i === start ? undefined : { end: i, value: found.value };
}

/**
 * One RFC 5424 message (no framing), with the value of `param` in the structured-data element `id`. Never throws;
 * fails where the full parse (the tests' reference, parseSyslogMessage) fails, with the same reason.
 * @param {string} text @param {string} id @param {string} param
 * @returns {EnvelopeResult}
 */
export function scanSyslogEnvelope(text, id, param) {
  const starts = headerFields(text);
  if (!starts) return { ok: false, reason: DRAIN.NOT_RFC5424 };
  const sd = scanStructuredData(text, starts[5], id, param);
  if (!sd) return { ok: false, reason: DRAIN.BAD_STRUCTURED_DATA };
  let message = sd.end;
  if (text.charCodeAt(message) === 32) message += 1;
  else if (message !== text.length && !(message === text.length - 1 && text.charCodeAt(message) === 10)) {
    return { ok: false, reason: DRAIN.BAD_STRUCTURED_DATA };
  }
  const messageEnd = text.length > message && text.charCodeAt(text.length - 1) === 10 ? text.length - 1 : text.length;
  return {
    ok: true,
    envelope: {
      hostname: starts[1],
      hostnameEnd: starts[2] - 1,
      appName: starts[2],
      appNameEnd: starts[3] - 1,
      procId: starts[3],
      procIdEnd: starts[4] - 1,
      tag: sd.value,
      message,
      messageEnd,
    },
  };
}

/**
 * Whether the PROCID field [from, to) names source type `type`: `[TYPE]` or `[TYPE/instance]`, as sourceOf reads it.
 * @param {string} text @param {number} from @param {number} to @param {string} type
 */
export function procIdIsSource(text, from, to, type) {
  const after = from + 1 + type.length;
  if (text.charCodeAt(from) !== 0x5b || !text.startsWith(type, from + 1) || text.charCodeAt(to - 1) !== 0x5d) {
    return false;
  }
  if (after === to - 1) return true;
  if (after >= to - 1 || text.charCodeAt(after) !== 0x2f) return false;
  const close = text.indexOf(']', after);
  return close === to - 1;
}
