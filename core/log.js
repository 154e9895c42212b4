import { createRequire } from 'node:module';
import { scrub } from './secrets.js';

// CommonJS, so required: imported, its source would be parsed once more at every start for its export names.
const pino = /** @type {typeof import('pino').default} */ (createRequire(import.meta.url)('pino'));

/** @typedef {import('pino').Logger} Logger */

/**
 * @typedef {object} LoggerOptions
 * @property {string} [level]
 * @property {readonly string[]} [secrets]
 * @property {import('pino').DestinationStream} [destination]
 * @property {boolean} [pretty]
 */

/**
 * Logs go to stderr (stdout is for human output): JSON, or pretty on a TTY. Every line passes
 * through `scrub` before it is written, so a secret that reached a message or an error's text
 * still never reaches the log.
 * @param {LoggerOptions} [options]
 * @returns {Logger}
 */
export function createLogger(options = {}) {
  const secrets = options.secrets ?? [];
  const pretty = options.pretty ?? (!options.destination && process.stderr.isTTY);
  const destination =
    options.destination ??
    (pretty
      ? pino.transport({ target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } })
      : pino.destination({ fd: 2, sync: true }));
  return pino(
    {
      level: options.level ?? 'info',
      base: { name: 'paasmon' },
      serializers: { err: serializeError },
      hooks: { streamWrite: (line) => scrub(line, secrets) },
    },
    destination,
  );
}

/**
 * Errors are logged by their message, kind and HTTP status only: an axios error carries the
 * request config with its Authorization header, which must never be written.
 * @param {any} err
 */
export function serializeError(err) {
  if (!err || typeof err !== 'object') return err;
  /** @type {Record<string, unknown>} */
  const out = { type: err.name, message: err.message };
  if (err.code) out.code = err.code;
  if (err.reason) out.reason = err.reason;
  if (err.status ?? err.response?.status) out.status = err.status ?? err.response?.status;
  if (err.cause) out.cause = serializeError(err.cause);
  return out;
}
