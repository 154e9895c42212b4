import { JOB } from './reason-codes.js';

/** Invalid or missing configuration: the CLI exits 2 with this message, which names the variable. */
export class ConfigError extends Error {
  /** @param {string} message @param {{ variable?: string, cause?: unknown }} [options] */
  constructor(message, options = {}) {
    super(message, { cause: options.cause });
    this.name = 'ConfigError';
    this.variable = options.variable;
  }
}

/** A source could not finish a poll. `records` holds what it fetched before failing, so nothing is lost. */
export class SourceError extends Error {
  /**
   * @param {string} message what was being done, e.g. "cloud-controller: stats of process 1f..."
   * @param {{ reason: string, cause?: unknown, records?: unknown[] }} options
   */
  constructor(message, options) {
    super(message, { cause: options.cause });
    this.name = 'SourceError';
    this.reason = options.reason;
    this.records = options.records ?? [];
  }
}

/**
 * The reason an error carries (SourceError, HttpError, ...) for counting by reason; `error` when none.
 * @param {unknown} err
 */
export function reasonOf(err) {
  const reason = /** @type {any} */ (err)?.reason;
  return typeof reason === 'string' ? reason : JOB.ERROR;
}
