// The full RFC 5424 parse of a drain message (header, every structured-data element, the MSG part):
// the reference the drain's one-pass envelope read (collector/sources/syslog-drain/envelope.js) is
// held to by property tests. Pure, never throws.
import { DRAIN } from '../../core/reason-codes.js';

/**
 * @typedef {object} SyslogMessage
 * @property {number} priority
 * @property {string} timestamp as written (RFC 3339)
 * @property {string | null} hostname
 * @property {string | null} appName the APP-NAME field (the agent puts the app guid there)
 * @property {string | null} procId e.g. `[RTR/0]`
 * @property {string | null} msgId
 * @property {Map<string, Map<string, string>>} structuredData SD-ID -> params
 * @property {string} message the MSG part, without the agent's trailing newline
 *
 * @typedef {{ ok: true, message: SyslogMessage } | { ok: false, reason: string }} SyslogParseResult
 */

const HEADER = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) /;

/** @param {string} field */
const nil = (field) => (field === '-' ? null : field);

/**
 * Structured data: `-` or `[id k="v" ...][id2 ...]`, values with \" \\ \] escapes.
 * @param {string} text @param {number} start
 * @returns {{ data: Map<string, Map<string, string>>, end: number } | undefined} end = index after the SD
 */
function parseStructuredData(text, start) {
  /** @type {Map<string, Map<string, string>>} */
  const data = new Map();
  if (text[start] === '-') return { data, end: start + 1 };
  let i = start;
  while (text[i] === '[') {
    let j = i + 1;
    while (j < text.length && text[j] !== ' ' && text[j] !== ']') j += 1;
    const id = text.slice(i + 1, j);
    /** @type {Map<string, string>} */
    const params = new Map();
    while (text[j] === ' ') {
      const eq = text.indexOf('="', j + 1);
      if (eq < 0) return undefined;
      const name = text.slice(j + 1, eq);
      let value = '';
      let k = eq + 2;
      // Unescaped runs are sliced whole: a string built a character at a time is garbage to collect.
      let from = k;
      for (; k < text.length && text[k] !== '"'; k += 1) {
        if (text[k] === '\\' && k + 1 < text.length && '"\\]'.includes(text[k + 1])) {
          value += text.slice(from, k);
          k += 1;
          from = k;
        }
      }
      value += text.slice(from, k);
      if (k >= text.length) return undefined;
      params.set(name, value);
      j = k + 1;
    }
    if (text[j] !== ']' || !id) return undefined;
    data.set(id, params);
    i = j + 1;
  }
  return i === start ? undefined : { data, end: i };
}

/**
 * One RFC 5424 message (no framing). Never throws.
 * @param {string} text
 * @returns {SyslogParseResult}
 */
export function parseSyslogMessage(text) {
  const head = HEADER.exec(text);
  if (!head) return { ok: false, reason: DRAIN.NOT_RFC5424 };
  const sd = parseStructuredData(text, head[0].length);
  if (!sd) return { ok: false, reason: DRAIN.BAD_STRUCTURED_DATA };
  let message = text.slice(sd.end);
  if (message.startsWith(' ')) message = message.slice(1);
  else if (message !== '' && message !== '\n') return { ok: false, reason: DRAIN.BAD_STRUCTURED_DATA };
  if (message.endsWith('\n')) message = message.slice(0, -1);
  return {
    ok: true,
    message: {
      priority: Number(head[1]),
      timestamp: head[2],
      hostname: nil(head[3]),
      appName: nil(head[4]),
      procId: nil(head[5]),
      msgId: nil(head[6]),
      structuredData: sd.data,
      message,
    },
  };
}

/** `[RTR/0]` -> { sourceType: 'RTR', instance: '0' }. @param {string | null} procId */
export function sourceOf(procId) {
  const match = procId ? /^\[([^/\]]+)(?:\/([^\]]*))?\]$/.exec(procId) : null;
  return match ? { sourceType: match[1], instance: match[2] ?? null } : { sourceType: null, instance: null };
}
