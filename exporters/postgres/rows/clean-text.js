// The one rule for text bound for PostgreSQL, which refuses 0x00 in text and any byte sequence
// that is not UTF-8: every text value of every record kind is cleaned where it is encoded for COPY
// (copy-binary.js, loadgen-rows.js), whatever source it came from. 0x00 and lone UTF-16
// surrogates (a JSON "\ud800") become U+FFFD; bytes that were not UTF-8 already became U+FFFD where
// they were decoded (Buffer#toString, TextDecoder, readline). A record holding U+FFFD in a text
// column afterwards counts as cleaned: stored, never skipped.

/** 0x00, a UTF-16 surrogate (paired or not: told apart below) or U+FFFD. */
const SUSPECT = /[\0\ud800-\udfff\ufffd]/;
const NUL = /\0/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The text as it is stored when it needs cleaning or holds U+FFFD already, else undefined (most
 * values: one regular-expression test). The result has as many UTF-16 units as `text`, and none
 * takes more than 3 bytes of UTF-8.
 * @param {string} text
 * @returns {string | undefined}
 */
export function cleanedText(text) {
  if (!SUSPECT.test(text)) return undefined;
  const clean = text.replace(NUL, '\ufffd').replace(LONE_SURROGATE, '\ufffd');
  return clean.includes('\ufffd') ? clean : undefined;
}
