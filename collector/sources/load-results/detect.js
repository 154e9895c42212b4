// Which format and shape a result file is, from its first bytes, by the recognisers of the format
// list. Unknown or ambiguous content is refused: a wrong guess would store wrong numbers.
import { IMPORT_FORMATS } from './formats.js';

/** @typedef {import('./formats.js').Head} Head */
/** @typedef {import('./formats.js').ImportFormat} ImportFormat */
/** @typedef {import('./formats.js').Shape} Shape */

/** @param {Buffer} bytes @returns {Head} */
export function headOf(bytes) {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const line = text.split(/\r?\n/, 1)[0].trim();
  let object;
  if (line.startsWith('{')) {
    try {
      const value = JSON.parse(line);
      if (value && typeof value === 'object') object = value;
    } catch {
      // not JSON: no JSON format's head
    }
  }
  return { bytes, text, line, object };
}

/**
 * Every format and shape the head could be (none, one, or several when it is ambiguous).
 * @param {Buffer} bytes @returns {Array<{ format: ImportFormat, shape: Shape }>}
 */
export function candidateShapes(bytes) {
  const head = headOf(bytes);
  return IMPORT_FORMATS.flatMap((format) =>
    format.shapes.filter((shape) => shape.recognise(head)).map((shape) => ({ format, shape })),
  );
}

/**
 * The shape of a format given by --format: the one its head fits, else the format's first.
 * @param {ImportFormat} format @param {Buffer} bytes
 */
export function shapeOf(format, bytes) {
  const head = headOf(bytes);
  return format.shapes.find((shape) => shape.recognise(head)) ?? format.shapes[0];
}

/**
 * The format and shape of the head, or a one-line reason why they cannot be told.
 * @param {Buffer} bytes
 * @returns {{ format: ImportFormat, shape: Shape } | { problem: string }}
 */
export function detectShape(bytes) {
  const found = candidateShapes(bytes);
  const formats = [...new Set(found.map(({ format }) => format.name))];
  if (found.length === 1) return found[0];
  const start = JSON.stringify(bytes.toString('utf8').split(/\r?\n/, 1)[0].slice(0, 60));
  if (formats.length > 1) return { problem: `its first line ${start} fits ${formats.join(' and ')}` };
  if (found.length > 1) return { problem: `its first line ${start} fits ${found.map(shapeName).join(' and ')}` };
  return { problem: `its first line ${start} is no known result format` };
}

/** @param {{ format: ImportFormat, shape: Shape }} found */
const shapeName = ({ format, shape }) => `${format.name} ${shape.variant}`;

/**
 * The name of the format of the head, or why it cannot be told.
 * @param {Buffer} bytes @returns {{ format: string } | { problem: string }}
 */
export function detectFormat(bytes) {
  const detected = detectShape(bytes);
  return 'problem' in detected ? detected : { format: detected.format.name };
}
