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
