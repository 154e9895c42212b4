// The COPY text format of single values (tables.js builds rows from them, copy.js streams rows).

const NEEDS_ESCAPE = /[\\\t\n\r]/;

/**
 * One value in COPY text format: \N for null, ISO time for dates, backslash escapes.
 * @param {unknown} value
 */
export function copyValue(value) {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Most values need no escape: one test instead of four replace passes (bench/ingest.bench.js profile).
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}
