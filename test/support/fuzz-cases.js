// Generated gorouter lines and search documents for the parsers' fuzzing (bench/fuzz.bench.js runs
// 10^6, test/unit/fuzz-sample.test.js 10^4): valid ones with the values they were generated from,
// and mutated, truncated, hostile-unicode, huge and arbitrary ones. The expected record is computed
// here from the generated values, never by the parser under test.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { fieldNamesFor, mapDocument } from '../../collector/sources/router-logs/documents.js';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';

const CORRELATION_FIELD = 'x_correlation_id';
export const DOCUMENT_OPTIONS = Object.freeze({
  fields: fieldNamesFor('auto', {}),
  format: /** @type {const} */ ('auto'),
  correlationField: CORRELATION_FIELD,
});

/** Text a gorouter line can carry inside quotes: anything but quotes, backslashes and controls. */
// eslint-disable-next-line no-control-regex -- controls are exactly what must go
const QUOTABLE = /["\\\u0000-\u001f\u007f]/g;
/** Unicode that breaks naive code: astral emoji, combining marks, RTL, zero-width, BOM, NBSP. */
const NASTY = ['😀', '👩‍👩‍👧', 'é', 'e\u0301', '\u202e', '\u200b', '\ufeff', '\u00a0', 'ß', 'İ', '中文', '\u2028', '𝔘'];
const nastyText = fc.array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: 'grapheme', maxLength: 4 })), {
  maxLength: 12,
});
/** @param {number} max */
const safeText = (max) =>
  fc
    .oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: max }),
      nastyText.map((parts) => parts.join('')),
    )
    .map((s) => s.replace(QUOTABLE, '').slice(0, max * 4));
const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) });
const hex = (/** @type {number} */ n) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });

/**
 * @typedef {object} Truth
 * @property {string} host
 * @property {number} receivedMs epoch ms @property {string} nanos 9 digits after the second
 * @property {number} offsetMinutes the zone the line is written in
 * @property {string} method @property {string} path @property {number | null} status
 * @property {number} bytesReceived @property {number} bytesSent
 * @property {string} referer @property {string} userAgent
 * @property {number} responseUs @property {number} gorouterUs
 * @property {string} vcapRequestId @property {string} appGuid @property {number} appIndex
 * @property {string} instanceId @property {string} correlationId @property {string} traceHex
 * @property {string | null} routerError
 */

/** @param {{ huge?: boolean }} [options] @returns {fc.Arbitrary<Truth>} */
export function truthArb(options = {}) {
  const big = fc.integer({ min: 65_536, max: 1 << 20 }).chain((n) => fc.constant('x'.repeat(n)));
  return fc.record({
    host: fc.domain(),
    // 2000-01-01 .. 2099-12-31, whole ms; the nanos add the sub-ms digits.
    receivedMs: fc.integer({ min: 946_684_800_000, max: 4_102_444_799_000 }),
    nanos: fc.integer({ min: 0, max: 999_999 }).map((n) => String(n).padStart(6, '0') + '000'),
    offsetMinutes: fc.constantFrom(0, 0, 60, -300, 330, 840, -720),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
    path: options.huge ? big.map((s) => `/${s}`) : safeText(60).map((s) => `/${s.replace(/ /g, '%20')}`),
    status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.constant(null)),
    bytesReceived: fc.nat({ max: 2 ** 40 }),
    bytesSent: fc.nat({ max: 2 ** 40 }),
    referer: safeText(40),
    userAgent: options.huge ? big : safeText(80),
    responseUs: fc.nat({ max: 600_000_000 }),
    gorouterUs: fc.nat({ max: 10_000_000 }),
    vcapRequestId: fc.uuid(),
    appGuid: fc.uuid(),
    appIndex: fc.nat({ max: 999 }),
    instanceId: safeText(40).filter((s) => s.trim() !== '' && s !== '-' && s.trim() === s),
    correlationId: fc.uuid(),
    traceHex: hex(32),
    routerError: fc.oneof(fc.constant(null), fc.constantFrom('endpoint_failure', 'backend_timeout')),
  });
}

/** Epoch ms + 9 sub-second digits, written in the given zone, as gorouter writes RFC 3339. @param {Truth} t */
function writtenTime(t) {
  const local = new Date(t.receivedMs + t.offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = t.offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(t.offsetMinutes);
  const zone =
    t.offsetMinutes === 0
      ? 'Z'
      : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local}.${String(t.receivedMs % 1000).padStart(3, '0')}${t.nanos.slice(0, 6)}${zone}`;
}

/** Microseconds as gorouter's seconds with 6 decimals. @param {number} us */
const seconds = (us) => `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}`;

/** @param {Truth} t */
export function lineOf(t) {
  const status = t.status === null ? '-' : String(t.status);
  return (
    `${t.host} - [${writtenTime(t)}] "${t.method} ${t.path} HTTP/1.1" ${status} ${t.bytesReceived} ${t.bytesSent} ` +
    `"${t.referer || '-'}" "${t.userAgent || '-'}" "10.0.1.2:51234" "10.0.32.6:61001" x_forwarded_for:"10.0.1.2" ` +
    `x_forwarded_proto:"https" vcap_request_id:"${t.vcapRequestId}" response_time:${seconds(t.responseUs)} ` +
    `gorouter_time:${seconds(t.gorouterUs)} app_id:"${t.appGuid}" app_index:"${t.appIndex}" ` +
    `instance_id:"${t.instanceId}" x_cf_routererror:"${t.routerError ?? '-'}" ` +
    `${CORRELATION_FIELD}:"${t.correlationId.toUpperCase()}" x_b3_traceid:"${t.traceHex}" x_b3_spanid:"${t.traceHex.slice(0, 16)}"`
  );
}

/** The record the parser must produce, from the generated values alone. @param {Truth} t */
export function expectedOf(t) {
  const whole = new Date(t.receivedMs).toISOString().slice(0, 19);
  const micros = `${String(t.receivedMs % 1000).padStart(3, '0')}${t.nanos.slice(0, 3)}`;
  return {
    kind: 'router_request',
    receivedAt: `${whole}.${micros}Z`,
    appGuid: t.appGuid,
    appName: null,
    appIndex: t.appIndex,
    instanceId: t.instanceId,
    method: t.method,
    path: t.path,
    status: t.status,
    responseTimeMs: t.responseUs / 1000,
    gorouterTimeMs: t.gorouterUs / 1000,
    responseTimeResolutionMs: null,
    bytesReceived: t.bytesReceived,
    bytesSent: t.bytesSent,
    vcapRequestId: t.vcapRequestId,
    correlationId: t.correlationId,
    routerError: t.routerError,
    traceId: t.traceHex,
  };
}

/** A logsearch document with parsed rtr.* fields (no kept line). @param {Truth} t */
function logsearchOf(t) {
  return {
    '@timestamp': new Date(t.receivedMs).toISOString(),
    '@source': { type: 'RTR' },
    '@cf': { app: 'shop', app_id: t.appGuid },
    '@message': `${t.status} ${t.method} ${t.path} (${t.responseUs / 1000} ms)`,
    rtr: {
      timestamp: writtenTime(t),
      verb: t.method,
      path: t.path,
      status: t.status,
      request_bytes_received: t.bytesReceived,
      body_bytes_sent: t.bytesSent,
      vcap_request_id: t.vcapRequestId,
      response_time_ms: t.responseUs / 1000,
      gorouter_time_ms: t.gorouterUs / 1000,
      app: { id: t.appGuid, index: t.appIndex },
      extra: {
        instance_id: t.instanceId,
        x_cf_routererror: t.routerError ?? '-',
        [CORRELATION_FIELD]: t.correlationId.toUpperCase(),
        x_b3_traceid: t.traceHex,
      },
    },
  };
}

const LINE_FIELDS = /** @type {const} */ (['@raw', '@message', 'message', 'log']);

/** A valid document: parsed fields or the line in one of the places pipelines keep it. */
export const validDocumentArb = fc
  .tuple(truthArb(), fc.constantFrom('rtr', ...LINE_FIELDS), fc.boolean())
  .map(([t, where, prefixed]) => {
    const expected = { ...expectedOf(t), appName: 'shop' };
    if (where === 'rtr') {
      const whole = Number.isInteger(t.responseUs / 1000) ? 1 : null;
      return { doc: logsearchOf(t), expected: { ...expected, responseTimeResolutionMs: whole } };
    }
    const line = prefixed ? `${new Date(t.receivedMs).toISOString()} [RTR/3] OUT ${lineOf(t)}\n` : lineOf(t);
    const doc = { '@timestamp': new Date(t.receivedMs).toISOString(), '@cf': { app: 'shop' }, [where]: line };
    return { doc, expected };
  });

/** A valid line with every value checked. */
export const validLineArb = truthArb().map((t) => ({ line: lineOf(t), expected: expectedOf(t) }));
/** Lines with a field of 64 KiB .. 1 MiB (path or user agent). */
export const hugeLineArb = truthArb({ huge: true }).map((t) => ({ line: lineOf(t), expected: expectedOf(t) }));

/** A valid line cut anywhere. */
export const truncatedLineArb = fc
  .tuple(truthArb(), fc.noBias(fc.integer({ min: 0, max: 1_000_000 })))
  .map(([t, at]) => {
    const line = lineOf(t);
    return { line: line.slice(0, Math.floor((at / 1_000_000) * line.length)), truth: t };
  });

/** A valid line with a span replaced by hostile text (unicode, lone surrogates, quotes, controls). */
export const mutatedLineArb = fc
  .tuple(
    truthArb(),
    fc.nat(),
    fc.nat({ max: 40 }),
    fc.oneof(
      nastyText.map((p) => p.join('')),
      loneSurrogates,
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', ' ', '[', ']', ':', '\n', '\u0000'),
    ),
  )
  .map(([t, a, b, insert]) => {
    const line = lineOf(t);
    const i = a % (line.length + 1);
    return line.slice(0, i) + insert + line.slice(Math.min(line.length, i + b));
  });

const hostileValue = fc.oneof(
  fc.anything({ withObjectString: true, withNullPrototype: true }),
  fc.record({ toString: fc.anything(), valueOf: fc.anything() }),
  loneSurrogates,
);
/** Documents of any shape, and valid ones with a field replaced by a hostile value. */
export const hostileDocumentArb = fc.oneof(
  fc.anything({ withObjectString: true }),
  fc
    .tuple(
      validDocumentArb,
      fc.constantFrom('rtr', 'rtr.extra', '@raw', 'message', 'log', '@cf', '@timestamp'),
      hostileValue,
    )
    .map(([{ doc }, key, value]) => {
      /** @type {any} */
      const copy = structuredClone(doc);
      if (key === 'rtr.extra' && copy.rtr) copy.rtr.extra = value;
      else copy[key] = value;
      return copy;
    }),
);

/** @param {import('../../collector/sources/gorouter/parse.js').ParseResult} result */
export function sane(result) {
  if (!result.ok) return typeof result.reason === 'string' && result.reason.length > 0;
  const r = result.record;
  return (
    [r.responseTimeMs, r.gorouterTimeMs, r.status, r.bytesReceived, r.bytesSent, r.appIndex].every(
      (v) => v === null || (Number.isFinite(v) && v >= 0),
    ) && !Number.isNaN(Date.parse(r.receivedAt))
  );
}

export const parseLine = (/** @type {string} */ line) =>
  parseGorouterLine(line, { correlationField: CORRELATION_FIELD });
export const mapDoc = (/** @type {unknown} */ doc) => mapDocument(doc, DOCUMENT_OPTIONS);

/**
 * The fuzz classes and their share of a run; each checks one generated case and says whether it
 * held. `count` counts what is worth printing (e.g. truncated lines that still parsed).
 * @typedef {{ name: string, share: number, arb: fc.Arbitrary<any>, check: FuzzCheck }} FuzzClass
 * @typedef {(c: any, count: (key: string) => void) => boolean} FuzzCheck
 * @type {FuzzClass[]}
 */
export const FUZZ_CLASSES = [
  {
    name: 'valid gorouter lines (hostile unicode in path, agent, referer, instance id)',
    share: 0.3,
    arb: validLineArb,
    check: ({ line, expected }) => {
      const result = parseLine(line);
      return result.ok && isDeepStrictEqual(result.record, expected);
    },
  },
  {
    name: 'valid search documents (rtr.*, @raw, @message, message, log)',
    share: 0.2,
    arb: validDocumentArb,
    check: ({ doc, expected }) => {
      const result = mapDoc(doc);
      return result.ok && isDeepStrictEqual(result.record, expected);
    },
  },
  {
    name: 'mutated lines',
    share: 0.2,
    arb: mutatedLineArb,
    check: (line) => sane(parseLine(line)),
  },
  {
    name: 'truncated lines',
    share: 0.15,
    arb: truncatedLineArb,
    check: ({ line, truth }, count) => {
      const result = parseLine(line);
      if (result.ok) {
        count('truncated lines that still parsed (fields after the cut are null)');
        const expected = /** @type {Record<string, unknown>} */ (expectedOf(truth));
        // correlationId falls back to vcap_request_id by design when the header field was cut off.
        const wrong = Object.entries(result.record).filter(
          ([key, value]) => key !== 'correlationId' && value !== null && !isDeepStrictEqual(value, expected[key]),
        );
        // Found by this fuzzing: a cut inside bytes_sent or response_time gave a shortened number.
        if (wrong.length) return false;
      }
      return sane(result);
    },
  },
  {
    name: 'hostile documents',
    share: 0.1499,
    arb: hostileDocumentArb,
    check: (doc) => sane(/** @type {any} */ (mapDoc(doc))),
  },
  {
    name: 'lines with a 64 KiB - 1 MiB field',
    share: 0.0001,
    arb: hugeLineArb,
    check: ({ line, expected }) => {
      const result = parseLine(line);
      return result.ok && isDeepStrictEqual(result.record, expected);
    },
  },
];

/**
 * Runs every class with its share of `total` cases; throws (with fast-check's shrunk
 * counterexample) at the first case that crashes or parses wrong.
 * @param {number} total
 * @param {{ seed?: number, onClass?: (name: string, runs: number, ms: number) => void }} [options]
 * @returns {{ runs: number, counts: Map<string, number> }}
 */
export function runFuzz(total, options = {}) {
  let runs = 0;
  /** @type {Map<string, number>} */
  const counts = new Map();
  const count = (/** @type {string} */ key) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const c of FUZZ_CLASSES) {
    const numRuns = Math.max(1, Math.round(total * c.share));
    const started = performance.now();
    fc.assert(
      fc.property(c.arb, (value) => c.check(value, count)),
      { numRuns, seed: options.seed, endOnFailure: false },
    );
    runs += numRuns;
    options.onClass?.(c.name, numRuns, performance.now() - started);
  }
  return { runs, counts };
}
