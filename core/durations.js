// Durations and times as a user writes them: "500ms", "30s", "2m", "1h", "1d"; ISO 8601 or now-15m.

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** @param {string} text e.g. "30s", "500ms", "2m" @returns {number | undefined} milliseconds */
export function parseDuration(text) {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[/** @type {keyof typeof UNIT_MS} */ (match[2])];
}

/**
 * An ISO 8601 time with a zone, `now`, or `now-<duration>` (now-15m), as an ISO string in UTC.
 * A time without a zone is refused: its meaning would depend on the machine's zone.
 * @param {string} text @param {Date} now @returns {string | undefined}
 */
export function parseTime(text, now) {
  const trimmed = text.trim();
  if (trimmed === 'now') return now.toISOString();
  if (trimmed.startsWith('now-')) {
    const ms = parseDuration(trimmed.slice(4));
    return ms === undefined ? undefined : new Date(now.getTime() - ms).toISOString();
  }
  if (!ISO_WITH_ZONE.test(trimmed)) return undefined;
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
