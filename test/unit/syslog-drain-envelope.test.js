// The drain's one-pass envelope scan (envelope.js) against the full RFC 5424 parse it stands in for:
// the same router request, or the same reason, for the agent's messages and for mangled ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseSyslogMessage, sourceOf } from '../support/rfc5424-reference.js';
import { appNameOfHostname, routerRequestFromSyslog } from '../../collector/sources/syslog-drain/records.js';
import { parseGorouterLine } from '../../collector/sources/gorouter/parse.js';
import { LINE } from '../../core/reason-codes.js';
import { gorouterLine, makeRequests } from '../support/router-docs.js';
import { logMessage, rtrEnvelope } from '../support/syslog-agent-standin.js';

/**
 * What the drain made of a message before the scan: the full parse, then the source, the line, the tags.
 * @param {string} text @param {{ correlationField?: string }} options
 */
function reference(text, options) {
  const parsed = parseSyslogMessage(text);
  if (!parsed.ok) return { ok: false, reason: parsed.reason, ignored: false };
  const m = parsed.message;
  if (sourceOf(m.procId).sourceType !== 'RTR') return { ok: false, reason: LINE.NOT_RTR, ignored: true };
  const line = parseGorouterLine(m.message, options);
  if (!line.ok && line.reason === LINE.EMPTY) return { ok: false, reason: LINE.EMPTY_RTR, ignored: true };
  if (!line.ok) return { ok: false, reason: line.reason, ignored: false };
  line.record.appGuid ??= m.appName?.toLowerCase() ?? null;
  line.record.appName = m.structuredData.get('tags@47450')?.get('app_name') ?? appNameOfHostname(m.hostname);
  return line;
}

const requests = makeRequests(20, Date.parse('2026-11-21T00:00:00Z'), 60_000, 'envelope');
const agentMessages = requests.map((r) =>
  logMessage(rtrEnvelope(gorouterLine(r), { appGuid: r.appGuid, appName: r.app })).toString(),
);
const head = '<14>1 2026-11-18T11:06:40+00:00 lab.perf.shop 0B1E6F8A-1d2c-4e5f-8a9b-0c1d2e3f4a5b';
const payload = gorouterLine({ ...requests[0], appGuid: requests[0].appGuid }).replace(/ app_id:"[^"]*"/, '');

/** Hand-made shapes at the edges of the grammar. */
const edges = [
  `${head} [RTR/0] - - ${payload}\n`,
  `${head} [RTR] - - ${payload}`,
  `${head} [RTR/] - - ${payload}\n`,
  `${head} [RTR/a/b] - - ${payload}\n`,
  `${head} [RTR]] - - ${payload}\n`,
  `${head} [RTRX/0] - - ${payload}\n`,
  `${head} [APP/PROC/WEB/0] - - hello\n`,
  `${head} - - - ${payload}\n`,
  `${head} [RTR/0] - [tags@47450 app_name="a \\"b\\" \\\\ \\] c"] ${payload}\n`,
  `${head} [RTR/0] - [tags@47450 app_name="first"][tags@47450 other="x"] ${payload}\n`,
  `${head} [RTR/0] - [tags@47450 app_name="one" app_name="two"][x@1 app_name="no"] ${payload}\n`,
  `${head} [RTR/0] - [tags@474500 app_name="longer id"] ${payload}\n`,
  `${head} [RTR/0] - [tags@47450 app_names="longer name"] ${payload}\n`,
  `${head} [RTR/0] - [tags@47450 app_name="unterminated] ${payload}\n`,
  `${head} [RTR/0] - [ app_name="no id"] ${payload}\n`,
  `${head} [RTR/0] - [tags@47450]${payload}\n`,
  `${head} [RTR/0] - [tags@47450]\n`,
  `${head} [RTR/0] - [tags@47450]`,
  `${head} [RTR/0] - [tags@47450] \n`,
  `${head} [RTR/0] - -\n\n`,
  `${head}\t[RTR/0] - - ${payload}\n`,
  `${head} [RTR/0]\u00a0- - ${payload}\n`,
  `${head}  [RTR/0] - - ${payload}\n`,
  `<1234>1 2026-11-18T11:06:40+00:00 h a [RTR/0] - - ${payload}\n`,
  `<>1 2026-11-18T11:06:40+00:00 h a [RTR/0] - - ${payload}\n`,
  `<14>2 2026-11-18T11:06:40+00:00 h a [RTR/0] - - ${payload}\n`,
  `<14>1 2026-11-18T11:06:40+00:00 h a [RTR/0] -`,
  '',
  'garbage',
];

describe('drain envelope scan', () => {
  it('gives what the full parse gives for the agent messages and edge shapes', () => {
    for (const text of [...agentMessages, ...edges]) {
      for (const options of [{}, { correlationField: 'x_correlation_id' }]) {
        assert.deepEqual(routerRequestFromSyslog(text, options), reference(text, options), JSON.stringify(text));
      }
    }
  });

  it('gives what the full parse gives for messages cut, spliced or with a character changed', () => {
    const texts = [...agentMessages, ...edges];
    const anyChar = fc.constantFrom(' ', '\t', '[', ']', '"', '\\', '=', '-', '/', '<', '>', '1', '\n', 'x', '\u3000');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: texts.length - 1 }),
        fc.nat(),
        fc.nat(),
        anyChar,
        fc.constantFrom('cut', 'replace', 'insert'),
        (which, a, b, char, how) => {
          const text = texts[which];
          const at = text.length ? a % text.length : 0;
          const changed =
            how === 'cut'
              ? text.slice(0, at) + text.slice(at + 1 + (b % 8))
              : how === 'replace'
                ? text.slice(0, at) + char + text.slice(at + 1)
                : text.slice(0, at) + char + text.slice(at);
          assert.deepEqual(routerRequestFromSyslog(changed, {}), reference(changed, {}), JSON.stringify(changed));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
