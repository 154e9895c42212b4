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

/** Whole seconds as 'YYYY-MM-DDTHH:MM:SS', kept for the second being written. */
let cachedSecond = Number.NaN;
let cachedSecondText = '';

/**
 * A wall-clock time in COPY text with microseconds (what PostgreSQL keeps), without a Date per
 * value: the load generator writes tens of thousands a second, all within the same few seconds.
 * @param {number} epochMs milliseconds since 1970, fractions kept to the microsecond
 */
export function copyTimestamp(epochMs) {
  let micros = Math.round(epochMs * 1000);
  const second = Math.floor(micros / 1_000_000);
  micros -= second * 1_000_000;
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedSecondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${cachedSecondText}.${String(micros).padStart(6, '0')}Z`;
}
