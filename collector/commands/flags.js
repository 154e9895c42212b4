// Flag values as users type them -> checked values, shared by every command and by the worker,
// which reads the same parameters from a run's meta. A bad value is a ConfigError naming the flag.
import os from 'node:os';
import { parseDuration, parseTime } from '../../core/durations.js';
import { ConfigError } from '../../core/errors.js';

/**
 * @param {string | undefined} value @param {string} flag @param {{ min?: number, integer?: boolean }} [options]
 * @returns {number | undefined}
 */
export function numberFlag(value, flag, options = {}) {
  if (value === undefined) return undefined;
  const n = Number(value);
  const min = options.min ?? 0;
  if (value.trim() === '' || !Number.isFinite(n) || (options.integer && !Number.isInteger(n)) || n < min) {
    const what = `${options.integer ? 'whole ' : ''}number${options.min ? ` of at least ${options.min}` : ''}`;
    throw new ConfigError(`${flag} must be a ${what}, got ${JSON.stringify(value)}`, { variable: flag });
  }
  return n;
}

/**
 * @param {string | undefined} text @param {string} flag @param {{ zero?: boolean }} [options] zero: 0 allowed
 * @returns {number | undefined} milliseconds
 */
export function durationFlag(text, flag, options = {}) {
  if (text === undefined) return undefined;
  if (options.zero && text.trim() === '0') return 0;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || (ms === 0 && !options.zero)) {
    const message = `${flag} must be a duration such as 500ms, 30s or 2m, got ${JSON.stringify(text)}`;
    throw new ConfigError(message, { variable: flag });
  }
  return ms;
}

/**
 * An ISO 8601 time with a zone, `now`, or `now-<duration>` such as now-15m, as an ISO string (UTC).
 * @param {string} text @param {string} flag @param {Date} now
 */
export function timeFlag(text, flag, now) {
  const time = parseTime(text, now);
  if (time === undefined) {
    const message =
      `${flag} must be an ISO 8601 time with a zone (2026-11-22T10:00:00Z) or now-<n>(s|m|h|d), ` +
      `got ${JSON.stringify(text)}`;
    throw new ConfigError(message, { variable: flag });
  }
  return time;
}

/** @param {string[]} pairs key=value @param {string} flag @returns {Record<string, string>} */
export function keyValueFlags(pairs, flag) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${flag} takes key=value, got ${JSON.stringify(pair)}`, { variable: flag });
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** @param {string[]} lines "Name: value" @returns {Record<string, string>} lower-case names */
export function headerFlags(lines) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (const header of lines) {
    const colon = header.indexOf(':');
    if (colon <= 0) {
      throw new ConfigError(`--header takes "Name: value", got ${JSON.stringify(header)}`, { variable: '--header' });
    }
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  return headers;
}

/** @param {string} text @param {string} flag */
export function httpUrlFlag(text, flag) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${flag} must be an http:// or https:// URL, got ${JSON.stringify(text)}`, {
      variable: flag,
    });
  }
  if (!['http:', 'https:'].includes(url.protocol)) {
    throw new ConfigError(`${flag} must be an http:// or https:// URL`, { variable: flag });
  }
  return url;
}

/** The open model opens connections as needed, up to this many unless --connections says otherwise. */
export const OPEN_MODEL_CONNECTIONS = 100;

/**
 * The load generator's flags, from the command line or from a run's meta (worker).
 * @typedef {object} LoadgenFlags
 * @property {string} url
 * @property {string} [requests]
 * @property {string} [duration]
 * @property {string} [parallel]
 * @property {string} [rate]
 * @property {string} [ramp]
 * @property {string} [warmup]
 * @property {string} [run]
 * @property {string} [method]
 * @property {string[]} [header]
 * @property {string} [body]
 * @property {string} [timeout]
 * @property {string} [connections]
 * @property {string} [startAt]
 * @property {string} [worker]
 * @property {string} [maxErrorRatio]
 * @property {string} [maxP95]
 * @property {string} [metricsPort]
 * @property {string} [summaryExport]
 */

/**
 * @typedef {import('../../loadgen/generate.js').LoadOptions & import('../../loadgen/run.js').RunChecks & {
 *   runId?: number, startAt?: string, worker: string, summaryExport?: string }} LoadgenOptions
 */

/**
 * @param {LoadgenFlags} flags
 * @param {Pick<import('../config/index.js').Config, 'correlationHeader' | 'runId' | 'instanceIndex'>} config
 * @returns {LoadgenOptions}
 */
export function loadgenOptions(flags, config) {
  const url = httpUrlFlag(flags.url, '--url');
  const requests = numberFlag(flags.requests, '--requests', { integer: true, min: 1 });
  const durationMs = durationFlag(flags.duration, '--duration');
  if (requests === undefined && durationMs === undefined) {
    throw new ConfigError('--requests N or --duration D is required', { variable: '--requests' });
  }
  const parallel = numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }) ?? 1;
  const rate = numberFlag(flags.rate, '--rate', { min: 0.001 });
  const rampMs = rampFlag(flags.ramp, rate, durationMs);
  const index = config.instanceIndex;
  return {
    url: url.toString(),
    method: (flags.method ?? 'GET').toUpperCase(),
    headers: headerFlags(flags.header ?? []),
    body: flags.body,
    timeoutMs: durationFlag(flags.timeout, '--timeout') ?? 10_000,
    connections:
      numberFlag(flags.connections, '--connections', { integer: true, min: 1 }) ??
      (rate ? OPEN_MODEL_CONNECTIONS : parallel),
    requests,
    durationMs,
    parallel,
    rate,
    rampMs,
    warmupMs: durationFlag(flags.warmup, '--warmup', { zero: true }),
    correlationHeader: config.correlationHeader,
    runId: flags.run === undefined ? config.runId : numberFlag(flags.run, '--run', { integer: true, min: 1 }),
    startAt: flags.startAt === undefined ? undefined : timeFlag(flags.startAt, '--start-at', new Date()),
    worker: flags.worker ?? (index !== undefined ? `instance-${index}` : `${os.hostname()}-${process.pid}`),
    maxErrorRatio: numberFlag(flags.maxErrorRatio, '--max-error-ratio'),
    maxP95Ms: numberFlag(flags.maxP95, '--max-p95'),
    summaryExport: flags.summaryExport,
  };
}

/**
 * --ramp: the open model's rate rises from 0 to --rate over this long, within --duration.
 * @param {string | undefined} text @param {number | undefined} rate @param {number | undefined} durationMs
 * @returns {number} ms, 0 without a ramp
 */
function rampFlag(text, rate, durationMs) {
  if (text === undefined) return 0;
  if (rate === undefined) {
    throw new ConfigError('--ramp raises the rate of --rate (the open model); add --rate R or leave --ramp out', {
      variable: '--ramp',
    });
  }
  const rampMs = /** @type {number} */ (durationFlag(text, '--ramp', { zero: true }));
  if (durationMs !== undefined && rampMs > durationMs) {
    throw new ConfigError(`--ramp ${text} is longer than --duration (which includes the ramp); shorten the ramp`, {
      variable: '--ramp',
    });
  }
  return rampMs;
}

/**
 * A side's runs of `compare` (and `report --baseline --candidate`): ids (12,13,14), `since:T`
 * (every run started since T), `label:L` or any other text (every run with that label).
 * @param {string} text @param {string} flag @param {Date} now
 * @returns {{ runs?: number[], label?: string, since?: string }}
 */
export function sideSelection(text, flag, now) {
  const value = text.trim();
  if (value === '') throw new ConfigError(`${flag} needs run ids (12,13,14), a label or since:T`, { variable: flag });
  if (/^[\d,\s]+$/.test(value)) {
    const ids = value.split(',').map((s) => s.trim());
    if (ids.some((id) => !/^[1-9]\d*$/.test(id)))
      throw new ConfigError(`${flag} takes run ids separated by commas (12,13,14), got ${JSON.stringify(text)}`, {
        variable: flag,
      });
    return { runs: [...new Set(ids.map(Number))] };
  }
  if (value.startsWith('since:')) return { since: timeFlag(value.slice(6), flag, now) };
  return { label: value.startsWith('label:') ? value.slice(6) : value };
}
