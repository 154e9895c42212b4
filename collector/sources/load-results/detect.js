// Which tool wrote a result file, from its first bytes: the header line of the CSV formats, the
// first JSON object of the JSON-lines formats, Gatling's RUN record. Unknown or ambiguous content
// is refused: a wrong guess would store wrong numbers.
import { HEY_HEADER, K6_CSV_HEADER_START } from './csv-formats.js';
import { looksLikeGatlingBinary } from './gatling.js';

/** The formats `import --format` takes. */
export const FORMATS = Object.freeze(['k6-json', 'k6-csv', 'jmeter', 'gatling', 'locust', 'hey', 'vegeta']);

/** @param {string} line @returns {any} */
function firstObject(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * Every format the head could be (none, one, or several when it is ambiguous).
 * @param {Buffer} head
 * @returns {string[]}
 */
export function candidateFormats(head) {
  if (looksLikeGatlingBinary(head)) return ['gatling'];
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const line = text.split(/\r?\n/, 1)[0].trim();
  const found = [];
  if (line.startsWith('RUN\t')) found.push('gatling');
  const header = line.split(',').map((name) => name.replace(/^"|"$/g, ''));
  if (header.includes('timeStamp') && header.includes('elapsed')) found.push('jmeter');
  if (HEY_HEADER.every((name, i) => header[i] === name)) found.push('hey');
  if (K6_CSV_HEADER_START.every((name, i) => header[i] === name)) found.push('k6-csv');
  if (/^\d{19},\d{1,3},\d+,\d+,\d+,/.test(line)) found.push('vegeta');
  const object = line.startsWith('{') ? firstObject(line) : undefined;
  if (object && typeof object === 'object') {
    if ((object.type === 'Metric' || object.type === 'Point') && typeof object.metric === 'string')
      found.push('k6-json');
    if ('seq' in object && 'latency' in object && 'timestamp' in object) found.push('vegeta');
    if ('start_time' in object && 'response_time' in object) found.push('locust');
  }
  return found;
}

/**
 * The format of the head, or a one-line reason why it cannot be told.
 * @param {Buffer} head @returns {{ format: string } | { problem: string }}
 */
export function detectFormat(head) {
  const found = candidateFormats(head);
  if (found.length === 1) return { format: found[0] };
  const start = JSON.stringify(head.toString('utf8').split(/\r?\n/, 1)[0].slice(0, 60));
  if (found.length > 1) return { problem: `its first line ${start} fits ${found.join(' and ')}` };
  if (/^\s*</.test(head.toString('utf8', 0, 64)))
    return { problem: 'it is XML: save JMeter results as CSV (jmeter.save.saveservice.output_format=csv)' };
  return { problem: `its first line ${start} is no known result format` };
}
