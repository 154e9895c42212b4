// JMeter's result files (JTL): CSV with a header row, whatever its delimiter, or XML
// (jmeter.save.saveservice.output_format=xml). Both hold the same sample values; one mapping turns
// them into a request.
import { StringDecoder } from 'node:string_decoder';
import { LOAD_RESULTS } from '../../../core/reason-codes.js';
import { request, num, transportErrorKind } from './records.js';

/** @typedef {import('./records.js').LineResult} LineResult */
/** @typedef {[result: LineResult, where: number, text: () => string]} Framed */

/** Sample variables (`sample_variables`) that may hold the request's correlation id. */
export const JMETER_ID_COLUMNS = ['paasmon_id', 'correlation_id', 'x-correlation-id', 'traceparent'];

/**
 * One sample's saved values as text, each undefined when not saved.
 * @typedef {object} JmeterValues
 * @property {string} [time] epoch ms at the sample's start (JMeter's shipped sampleresult.timestamp.start=true)
 * @property {string} [elapsed] ms
 * @property {string} [label]
 * @property {string} [code] a status, or `Non HTTP response code: ...` for a sample JMeter could not send
 * @property {string} [message]
 * @property {string} [success] `true` or `false`
 * @property {string} [failure] the failed assertion's message
 * @property {string} [bytes]
 * @property {string} [url]
 * @property {string} [id]
 */

/** @param {JmeterValues} v @returns {LineResult} */
function jmeterSample(v) {
  const startedAtMs = num(v.time);
  const durationMs = num(v.elapsed);
  if (Number.isNaN(startedAtMs) || Number.isNaN(durationMs) || durationMs < 0) return LOAD_RESULTS.BAD_NUMBER;
  const ok = v.success === 'true';
  const code = v.code ?? '';
  const status = /^\d{3}$/.test(code) ? Number(code) : 0;
  const message = v.failure || v.message || '';
  const bytes = num(v.bytes);
  const label = v.label ?? '';
  return request({
    correlationId: v.id || null,
    startedAtMs,
    durationMs,
    status,
    error: ok ? null : status ? message || `status ${status}` : transportErrorKind(`${code} ${message}`),
    tool: 'jmeter',
    method: /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /.exec(label)?.[1] ?? null,
    url: v.url || label || null,
    bytes: Number.isNaN(bytes) ? null : bytes,
  });
}

/**
 * A delimited JTL's rows, read by the names of its header row.
 * @param {string[]} header @returns {(fields: string[]) => LineResult}
 */
export function jmeterRows(header) {
  const at = {
    time: header.indexOf('timeStamp'),
    elapsed: header.indexOf('elapsed'),
    label: header.indexOf('label'),
    code: header.indexOf('responseCode'),
    message: header.indexOf('responseMessage'),
    success: header.indexOf('success'),
    failure: header.indexOf('failureMessage'),
    bytes: header.indexOf('bytes'),
    url: header.indexOf('URL'),
    id: header.findIndex((name) => JMETER_ID_COLUMNS.includes(name.toLowerCase())),
  };
  if (at.time < 0 || at.elapsed < 0 || at.success < 0)
    throw new Error('JTL header lacks timeStamp, elapsed or success: save them (jmeter.save.saveservice.*)');
  // One object literal per row (a value not saved is at -1: undefined); no entries built and merged.
  return (fields) => {
    if (fields.length < header.length) return LOAD_RESULTS.SHORT_ROW;
    return jmeterSample({
      time: fields[at.time],
      elapsed: fields[at.elapsed],
      label: fields[at.label],
      code: fields[at.code],
      message: fields[at.message],
      success: fields[at.success],
      failure: fields[at.failure],
      bytes: fields[at.bytes],
      url: fields[at.url],
      id: fields[at.id],
    });
  };
}

/** XML attributes of a sample and the values they hold. */
const XML_ATTRIBUTES = /** @type {const} */ ({
  ts: 'time',
  t: 'elapsed',
  lb: 'label',
  rc: 'code',
  rm: 'message',
  s: 'success',
  by: 'bytes',
});

/**
 * The value each attribute name holds: one of XML_ATTRIBUTES, the id (a variable of
 * JMETER_ID_COLUMNS), or none; remembered, as every sample repeats the same names.
 */
function attributeKeys() {
  /** @type {Map<string, keyof JmeterValues | undefined>} */
  const known = new Map();
  return (/** @type {string} */ name) => {
    if (!known.has(name)) {
      const key = XML_ATTRIBUTES[/** @type {keyof typeof XML_ATTRIBUTES} */ (name)];
      known.set(name, key ?? (JMETER_ID_COLUMNS.includes(xmlVariableName(name).toLowerCase()) ? 'id' : undefined));
    }
    return known.get(name);
  };
}

/** Names of the top-level samples: `httpSample` for HTTP, `sample` for the other samplers. */
const SAMPLES = new Set(['httpSample', 'sample']);

/**
 * A variable's name from its XML attribute: JMeter's XStream writes `_` as `__` and `$` as `_-`.
 * @param {string} name
 */
export const xmlVariableName = (name) => name.replace(/_([_-])/g, (_, c) => (c === '_' ? '_' : '$'));

/**
 * The samples of an XML JTL, streamed: a sample is the attributes of a child of `testResults`, its
 * `java.net.URL` child and its first failed assertion's message; nested sub-samples (redirects,
 * embedded resources, a transaction's parts) are inside their parent's time and no request of their
 * own. A file cut between samples (JMeter stopped) loses nothing; one cut inside a sample is one
 * `truncated`; markup that is not well-formed is one `xml_framing` per error.
 * @returns {Promise<{ push(chunk: Buffer): Framed[], end(): Framed[] }>}
 */
export async function jmeterXmlDecoder() {
  const { default: sax } = await import('sax');
  const parser = sax.parser(true, { position: true });
  const text = new StringDecoder('utf8');
  const keyOf = attributeKeys();
  /** @type {Framed[]} */
  let out = [];
  /** @type {string[]} */
  const open = [];
  /**
   * @type {{ values: JmeterValues, line: number, damaged: boolean, tag: () => string,
   *   capture?: 'url' | 'failure' } | undefined}
   */
  let sample;
  // An error inside a tag leaves its sample out (the error is its skip); the end of the input
  // inside a sample, or inside any tag, is one truncated sample.
  let damagedTag = false;
  let cut = false;
  parser.onopentag = (node) => {
    open.push(node.name);
    const damaged = damagedTag;
    damagedTag = false;
    if (open.length === 2 && SAMPLES.has(node.name)) {
      const attributes = /** @type {Record<string, string>} */ (node.attributes);
      /** @type {JmeterValues} */
      const values = {};
      for (const name in attributes) {
        const key = keyOf(name);
        if (key && values[key] === undefined) values[key] = attributes[name];
      }
      const { name } = node;
      sample = { values, line: parser.line + 1, damaged, tag: () => `<${name} ${attributeText(attributes)}>` };
    } else if (sample && open.length === 3 && node.name === 'java.net.URL') sample.capture = 'url';
    else if (sample && open.length === 4 && node.name === 'failureMessage' && open[2] === 'assertionResult')
      sample.capture = sample.values.failure ? undefined : 'failure';
  };
  parser.ontext = (chunk) => {
    if (sample?.capture) sample.values[sample.capture] = (sample.values[sample.capture] ?? '') + chunk;
  };
  parser.oncdata = parser.ontext;
  parser.onclosetag = () => {
    if (sample) sample.capture = undefined;
    if (open.length === 2 && sample) {
      const { values, line, damaged, tag } = sample;
      if (!damaged) out.push([jmeterSample(values), line, tag]);
      sample = undefined;
    }
    open.pop();
  };
  parser.onerror = (err) => {
    parser.error = /** @type {any} */ (null);
    const message = err.message.split('\n')[0];
    if (message === 'Unclosed root tag' || message === 'Unexpected end') {
      cut ||= message === 'Unexpected end' || sample !== undefined;
      return;
    }
    damagedTag ||= /^(OPEN_TAG|ATTRIB)/.test(sax.STATE[parser.state]);
    out.push([LOAD_RESULTS.XML_FRAMING, parser.line + 1, () => message]);
  };
  const flush = () => {
    const done = out;
    out = [];
    return done;
  };
  return {
    push: (chunk) => (parser.write(text.write(chunk)), flush()),
    end() {
      const line = parser.write(text.end()).line + 1;
      parser.close();
      if (cut) out.push([LOAD_RESULTS.TRUNCATED, line, () => 'a sample cut short at the end of the file']);
      return flush();
    },
  };
}

/** @param {Record<string, string>} attributes */
const attributeText = (attributes) =>
  Object.entries(attributes)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(' ');
