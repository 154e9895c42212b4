import { createRequire } from 'node:module';
import { scrub } from './secrets.js';

const require = createRequire(import.meta.url);

/** @typedef {import('pino').Logger} Logger */

/**
 * @typedef {object} LoggerOptions
 * @property {string} [level]
 * @property {readonly string[]} [secrets]
 * @property {import('pino').DestinationStream} [destination]
 * @property {boolean} [pretty]
 */

/** pino's levels by number: a call below the logger's level writes nothing, in pino as here. */
const LEVELS = /** @type {Record<string, number>} */ ({
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
});

/**
 * Logs go to stderr (stdout is for human output): JSON, or pretty on a TTY. Every line passes
 * through `scrub` before it is written, so a secret that reached a message or an error's text
 * still never reaches the log. pino is loaded and the logger made on the first call at an enabled
 * level (or any other use): a command that logs nothing, as most one-shot commands at the default
 * level, never loads it.
 * @param {LoggerOptions} [options]
 * @returns {Logger}
 */
export function createLogger(options = {}) {
  const threshold = options.level === 'silent' ? Infinity : LEVELS[options.level ?? 'info'];
  /** @type {Logger | undefined} */
  let logger;
  const made = () => (logger ??= makeLogger(options));
  const nothing = () => {};
  return new Proxy(/** @type {Logger} */ ({}), {
    get(_, key) {
      if (!logger && typeof key === 'string' && LEVELS[key] < threshold) return nothing;
      const target = made();
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set: (_, key, value) => Reflect.set(made(), key, value),
    has: (_, key) => Reflect.has(made(), key),
  });
}

/** @param {LoggerOptions} options @returns {Logger} */
function makeLogger(options) {
  // CommonJS, so required: imported, its source would be parsed once more for its export names.
  const pino = /** @type {typeof import('pino').default} */ (require('pino'));
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
