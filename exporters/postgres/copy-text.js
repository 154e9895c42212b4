// The COPY text format of single values (tables.js builds rows from them, copy.js streams rows).
import { cleanedText } from './clean-text.js';

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/**
 * One value in COPY text format: \N for null, ISO time for dates, backslash escapes; text cleaned
 * as clean-text.js says.
 * @param {unknown} value
 * @param {() => void} [onCleaned] called when the value held text that was (or had been) cleaned
 */
export function copyValue(value, onCleaned) {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const clean = cleanedText(text);
  if (clean !== undefined) {
    text = clean;
    onCleaned?.();
  }
  // Most values need no escape: one test instead of four replace passes (bench/ingest.bench.js profile).
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}
