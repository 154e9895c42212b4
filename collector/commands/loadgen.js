import os from 'node:os';
import { parseDuration } from '../config.js';
import { ConfigError } from '../errors.js';
import { getRun, startRun } from '../runs.js';
import { withMigratedDatabase } from '../../exporters/database.js';
import { generateLoad } from '../../loadgen/generate.js';
import { createRecorder } from '../../loadgen/recorder.js';
import { numberFlag } from './run.js';
import { createHttpServer } from '../http.js';
import { createPrometheusSink } from '../../exporters/prometheus.js';
import { parseTimeFlag } from './ingest.js';

/**
 * @typedef {object} LoadgenFlags
 * @property {string} url
 * @property {string} [requests]
 * @property {string} [duration]
 * @property {string} [parallel]
 * @property {string} [rate]
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
 */

/** @param {string | undefined} text @param {string} flag */
function durationFlag(text, flag) {
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) throw new ConfigError(`${flag} must be a duration such as 500ms, 30s or 2m, got ${JSON.stringify(text)}`, { variable: flag });
  return ms;
}

/**
 * @param {LoadgenFlags} flags @param {Record<string, string | undefined>} env @param {string} correlationHeader
 * @returns {import('../../loadgen/generate.js').LoadOptions & { runId?: number, startAt?: string, worker: string, maxErrorRatio?: number, maxP95Ms?: number }}
 */
export function loadOptions(flags, env, correlationHeader) {
  let url;
  try { url = new URL(flags.url); } catch { throw new ConfigError(`--url must be an http:// or https:// URL, got ${JSON.stringify(flags.url)}`, { variable: '--url' }); }
  if (!['http:', 'https:'].includes(url.protocol)) throw new ConfigError('--url must be an http:// or https:// URL', { variable: '--url' });
  const requests = numberFlag(flags.requests, '--requests', { integer: true, min: 1 });
  const durationMs = durationFlag(flags.duration, '--duration');
  if (requests === undefined && durationMs === undefined) throw new ConfigError('--requests N or --duration D is required', { variable: '--requests' });
  /** @type {Record<string, string>} */
  const headers = {};
  for (const header of flags.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new ConfigError(`--header takes "Name: value", got ${JSON.stringify(header)}`, { variable: '--header' });
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  const parallel = numberFlag(flags.parallel, '--parallel', { integer: true, min: 1 }) ?? 1;
  const runText = flags.run ?? env.RUN_ID;
  const index = env.CF_INSTANCE_INDEX;
  return {
    url: url.toString(),
    method: (flags.method ?? 'GET').toUpperCase(),
    headers,
    body: flags.body,
    timeoutMs: durationFlag(flags.timeout, '--timeout') ?? 10_000,
    connections: numberFlag(flags.connections, '--connections', { integer: true, min: 1 }) ?? parallel,
    requests,
    durationMs,
    parallel,
    rate: numberFlag(flags.rate, '--rate', { min: 0.001 }),
    correlationHeader,
    runId: runText === undefined ? undefined : numberFlag(runText, flags.run ? '--run' : 'RUN_ID', { integer: true, min: 1 }),
    startAt: flags.startAt,
    worker: flags.worker ?? (index !== undefined ? `instance-${index}` : `${os.hostname()}-${process.pid}`),
    maxErrorRatio: numberFlag(flags.maxErrorRatio, '--max-error-ratio'),
    maxP95Ms: numberFlag(flags.maxP95, '--max-p95'),
  };
}

/** @param {number} ms */
const fmt = (ms) => ms.toFixed(2).padStart(10);

/**
 * A summary like hey's, from the run's statistics.
 * @param {import('../../loadgen/stats.js').Stats} stats @param {number} elapsedMs
 */
export function formatSummary(stats, elapsedMs) {
  const lines = [
    'Summary:',
    `  Requests:     ${stats.count}`,
    `  Total:        ${(elapsedMs / 1000).toFixed(3)} s`,
    `  Requests/sec: ${(stats.count / (elapsedMs / 1000)).toFixed(1)}`,
    `  Errors:       ${stats.errorCount} (${stats.count ? ((100 * stats.errorCount) / stats.count).toFixed(2) : '0.00'} %; no response or 5xx)`,
    '',
    'Latency (ms; percentiles from an HDR histogram, 3 significant digits):',
    `  mean ${fmt(stats.meanMs)}  stddev ${fmt(stats.stddevMs)}`,
    `  p50  ${fmt(stats.percentile(50))}  p90    ${fmt(stats.percentile(90))}  p95 ${fmt(stats.percentile(95))}`,
    `  p99  ${fmt(stats.percentile(99))}  max    ${fmt(stats.maxMs)}`,
    '',
    'Status codes:',
    ...[...stats.statuses].sort((a, b) => a[0] - b[0]).map(([status, n]) => `  [${status}] ${n} responses`),
  ];
  if (stats.errors.size) lines.push('', 'Errors:', ...[...stats.errors].map(([kind, n]) => `  ${kind}: ${n}`));
  return lines.join('\n');
}

/**
 * /metrics of the load generator while it runs, on --metrics-port (or $PORT, as Cloud Foundry sets it).
 * @param {string | undefined} portText @param {import('../config.js').Config} config @param {import('pino').Logger} log
 */
async function serveMetrics(portText, config, log) {
  const port = numberFlag(portText, '--metrics-port', { integer: true });
  if (port === undefined) return undefined;
  const sink = createPrometheusSink();
  const server = createHttpServer({
    registry: sink.registry, bearerToken: config.metricsBearerToken, log,
    health: async () => ({ healthy: true, body: { status: 'ok', source: 'loadgen' } }),
  });
  server.listen(port);
  await new Promise((resolve) => server.once('listening', resolve));
  log.info({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port }, 'loadgen: serving /metrics');
  return { sink, server };
}

/**
 * Drives one run: waits for --start-at, generates the load, records every request, prints the
 * summary and applies the pass/fail checks.
 * @param {import('pg').Pool} pool @param {number} runId @param {ReturnType<typeof loadOptions>} options
 * @param {{ config: import('../config.js').Config, log: import('pino').Logger, out: (line: string) => void, env: Record<string, string | undefined>, metricsPort?: string, signal?: AbortSignal }} ctx
 * @returns {Promise<number>} exit code
 */
export async function runLoad(pool, runId, options, { config, log, out, env, metricsPort, signal }) {
  if (options.startAt) {
    const at = Date.parse(parseTimeFlag(options.startAt, '--start-at', new Date()));
    const wait = at - Date.now();
    if (wait > 0) {
      log.info({ startAt: new Date(at).toISOString(), worker: options.worker }, 'loadgen: waiting for the start time');
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  const recorder = createRecorder({ pool, runId, worker: options.worker });
  const metrics = await serveMetrics(metricsPort ?? env.PORT, config, log);
  const live = process.stderr.isTTY;
  const { stats, elapsedMs } = await generateLoad(options, {
    signal,
    record: (request) => {
      metrics?.sink.observeLoadgenRequest(runId, request);
      return recorder.record(request);
    },
    onProgress: live ? (s, elapsed) => {
      process.stderr.write(`\r${s.count} requests  ${(s.count / (elapsed / 1000)).toFixed(0)} rps  ${s.errorCount} errors  p50 ${s.percentile(50).toFixed(1)} ms  p99 ${s.percentile(99).toFixed(1)} ms   `);
    } : undefined,
  });
  if (live) process.stderr.write('\n');
  metrics?.server.close();
  await recorder.close();
  out(formatSummary(stats, elapsedMs));
  out(`\nrun ${runId}, worker ${options.worker}: ${recorder.written} requests recorded`);
  const errorRatio = stats.count ? stats.errorCount / stats.count : 0;
  /** @type {string[]} */
  const broken = [];
  if (options.maxErrorRatio !== undefined && errorRatio > options.maxErrorRatio) broken.push(`error ratio ${errorRatio.toFixed(4)} > --max-error-ratio ${options.maxErrorRatio}`);
  if (options.maxP95Ms !== undefined && stats.percentile(95) > options.maxP95Ms) broken.push(`p95 ${stats.percentile(95).toFixed(2)} ms > --max-p95 ${options.maxP95Ms} ms`);
  for (const line of broken) out(`FAILED: ${line}`);
  return broken.length ? 1 : 0;
}

/**
 * @param {import('../config.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void }} ctx
 * @param {LoadgenFlags} flags
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<number>}
 */
export function loadgenCommand(config, { log, out }, flags, env) {
  const options = loadOptions(flags, env, config.correlationHeader);
  return withMigratedDatabase(config, log, async (pool) => {
    let runId = options.runId;
    if (runId === undefined) {
      runId = await startRun(pool, { label: `loadgen ${new URL(options.url).host}`, appName: new URL(options.url).hostname.split('.')[0], parallel: options.parallel });
      out(`run ${runId} started`);
    } else if (!(await getRun(pool, runId))) {
      throw new ConfigError(`run ${runId} does not exist (paasmon run start prints a run id)`, { variable: flags.run ? '--run' : 'RUN_ID' });
    }
    return runLoad(pool, runId, options, { config, log, out, env, metricsPort: flags.metricsPort });
  });
}
