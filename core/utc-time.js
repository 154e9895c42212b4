// The whole seconds of an RFC 3339 time, read digit by digit: router-log ingest reads a time or two
// per document, and a regular expression and Date objects for each cost more than the digits.

/**
 * The number that the `count` characters at `at` write in decimal; NaN unless all are digits.
 * @param {string} text @param {number} at @param {number} count
 */
export function digitsAt(text, at, count) {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/** @param {number} year @param {number} month 1-12 */
function daysIn(year, month) {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Unix milliseconds of `YYYY-MM-DDThh:mm:ss` (T, t or a space between date and time) at the start of
 * `text`, read as UTC; NaN when those 19 characters are not a date and time that exists (second 60,
 * a leap second, included), or the year is before 1000.
 * @param {string} text
 */
export function wholeSecondsMs(text) {
  if (text.length < 19) return Number.NaN;
  const t = text[10];
  if (text[4] !== '-' || text[7] !== '-' || (t !== 'T' && t !== 't' && t !== ' ')) return Number.NaN;
  if (text[13] !== ':' || text[16] !== ':') return Number.NaN;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  // NaN fails every comparison below.
  if (!(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month))) return Number.NaN;
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}
