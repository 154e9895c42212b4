// Secret values are scrubbed from every text paasmon writes (log lines, messages, printed config).

/**
 * Replaces every secret value in a text by [REDACTED], also in its JSON-escaped form.
 * @param {string} text @param {readonly string[]} secrets
 */
export function scrub(text, secrets) {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
    const encoded = JSON.stringify(secret).slice(1, -1);
    if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join('[REDACTED]');
  }
  return out;
}

/** Keys whose values are credentials whatever they hold. */
const SECRET_KEY = /pass|secret|token|auth|api_?key|credential/i;

/**
 * A user-given key=value (run meta) as it may be shown: values of credential-like keys hidden,
 * and the password of a URL (https://user:password@host/) masked.
 * @param {string} key @param {string} value
 */
export function shownValue(key, value) {
  if (SECRET_KEY.test(key)) return '[REDACTED]';
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#:@\s]*):[^/?#@\s]*@/i, '$1:[REDACTED]@');
}
