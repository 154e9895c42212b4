// Pure functions: Cloud Controller stats payloads -> InstanceSample records. No I/O here.
import { CLOUD_CONTROLLER } from '../../../core/reason-codes.js';

/** @typedef {import('../../../core/types.js').InstanceSample} InstanceSample */

/**
 * @typedef {object} StatsContext
 * @property {Date} ts the poll's time: one instant for every sample of a poll, so instances line up
 * @property {string} appGuid
 * @property {string} appName
 * @property {string} processType
 *
 * @typedef {{ reason: string, detail: string }} ParseWarning
 * @typedef {{ samples: InstanceSample[], warnings: ParseWarning[] }} ParsedStats
 */

/** States whose usage numbers describe a live container; others are recorded with null usage. */
const MEASURED_STATES = new Set(['RUNNING', 'STOPPING']);

/** @param {unknown} value @returns {number | null} */
function nonNegative(value) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** API fraction of one core -> percent of one core (0.25 -> 25; 2.5 -> 250). @param {unknown} fraction */
export function fractionToPercent(fraction) {
  const value = nonNegative(fraction);
  return value === null ? null : value * 100;
}

/**
 * @typedef {object} StatsEntry
 * @property {number} index
 * @property {string} state
 * @property {any} [usage]
 * @property {unknown} [memQuota]
 * @property {unknown} [diskQuota]
 * @property {unknown} [uptime]
 */

/**
 * @param {StatsContext} ctx
 * @param {StatsEntry} entry
 * @param {ParseWarning[]} warnings
 * @returns {InstanceSample}
 */
function toSample(ctx, entry, warnings) {
  const state = typeof entry.state === 'string' && entry.state ? entry.state.toUpperCase() : 'UNKNOWN';
  const where = `${ctx.appName}/${ctx.processType}/${entry.index}`;
  const usage = entry.usage && typeof entry.usage === 'object' ? entry.usage : null;
  let measured = MEASURED_STATES.has(state) && usage !== null;
  if (measured && Object.keys(usage).length === 0) {
    warnings.push({
      reason: CLOUD_CONTROLLER.STATS_UNAVAILABLE,
      detail: `${where}: usage is empty (metrics backend unavailable)`,
    });
    measured = false;
  }
  if (measured && nonNegative(usage.cpu) === null) {
    warnings.push({
      reason: CLOUD_CONTROLLER.BAD_USAGE,
      detail: `${where}: usage.cpu is ${JSON.stringify(usage.cpu)}`,
    });
  }
  return {
    kind: 'instance_sample',
    ts: ctx.ts,
    appGuid: ctx.appGuid,
    appName: ctx.appName,
    processType: ctx.processType,
    instanceIndex: entry.index,
    state,
    cpuPercent: measured ? fractionToPercent(usage.cpu) : null,
    cpuEntitlementPercent: measured ? fractionToPercent(usage.cpu_entitlement) : null,
    memBytes: measured ? nonNegative(usage.mem) : null,
    memQuotaBytes: nonNegative(entry.memQuota),
    diskBytes: measured ? nonNegative(usage.disk) : null,
    diskQuotaBytes: nonNegative(entry.diskQuota),
    uptimeSeconds: nonNegative(entry.uptime),
  };
}

/**
 * `GET /v3/processes/:guid/stats` body -> samples, one per instance index.
 * @param {any} body @param {StatsContext} ctx @returns {ParsedStats}
 */
export function parseV3Stats(body, ctx) {
  /** @type {ParseWarning[]} */
  const warnings = [];
  const resources = Array.isArray(body?.resources) ? body.resources : null;
  if (!resources) {
    warnings.push({
      reason: CLOUD_CONTROLLER.BAD_PAYLOAD,
      detail: `${ctx.appName}/${ctx.processType}: stats body has no resources list`,
    });
    return { samples: [], warnings };
  }
  /** @type {InstanceSample[]} */
  const samples = [];
  for (const r of resources) {
    if (!r || !Number.isInteger(r.index) || r.index < 0) {
      warnings.push({
        reason: CLOUD_CONTROLLER.BAD_PAYLOAD,
        detail: `${ctx.appName}/${ctx.processType}: stats entry without a valid index`,
      });
      continue;
    }
    samples.push(
      toSample(
        ctx,
        {
          index: r.index,
          state: r.state,
          usage: r.usage,
          memQuota: r.mem_quota,
          diskQuota: r.disk_quota,
          uptime: r.uptime,
        },
        warnings,
      ),
    );
  }
  samples.sort((a, b) => a.instanceIndex - b.instanceIndex);
  return { samples, warnings };
}

/**
 * `GET /v2/apps/:guid/stats` body, keyed by the index as a string -> samples sorted numerically.
 * @param {any} body @param {StatsContext} ctx @returns {ParsedStats}
 */
export function parseV2Stats(body, ctx) {
  /** @type {ParseWarning[]} */
  const warnings = [];
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    warnings.push({ reason: CLOUD_CONTROLLER.BAD_PAYLOAD, detail: `${ctx.appName}: v2 stats body is not an object` });
    return { samples: [], warnings };
  }
  /** @type {InstanceSample[]} */
  const samples = [];
  for (const [key, entry] of Object.entries(body)) {
    const index = /^\d+$/.test(key) ? Number(key) : NaN;
    if (!Number.isInteger(index) || !entry || typeof entry !== 'object') {
      warnings.push({
        reason: CLOUD_CONTROLLER.BAD_PAYLOAD,
        detail: `${ctx.appName}: v2 stats key ${JSON.stringify(key)} is not an instance index`,
      });
      continue;
    }
    const stats = entry.stats ?? {};
    samples.push(
      toSample(
        ctx,
        {
          index,
          state: entry.state,
          usage: stats.usage,
          memQuota: stats.mem_quota,
          diskQuota: stats.disk_quota,
          uptime: stats.uptime,
        },
        warnings,
      ),
    );
  }
  samples.sort((a, b) => a.instanceIndex - b.instanceIndex);
  return { samples, warnings };
}

/**
 * Cloud Controller error body (v3 `errors[]` or v2 `error_code`) -> its title, e.g. "CF-InvalidAuthToken".
 * @param {any} body @returns {string | undefined}
 */
export function errorTitle(body) {
  if (typeof body === 'string') {
    try {
      return errorTitle(JSON.parse(body));
    } catch {
      return undefined;
    }
  }
  if (!body || typeof body !== 'object') return undefined;
  if (Array.isArray(body.errors) && body.errors[0]?.title) return String(body.errors[0].title);
  if (body.error_code) return String(body.error_code);
  return undefined;
}
