// Pure: Log Cache read responses -> router requests and instance samples. No I/O here.
//
// Shapes (cloudfoundry/log-cache-release src/README.md "GET /api/v1/read/<source-id>", gateway.go:
// protojson with UseProtoNames and EmitUnpopulated; /work/shared/reference/cloud-foundry.md §6):
// `{"envelopes":{"batch":[{"timestamp":"<int64 ns as string>","source_id":"<app guid>",
//   "instance_id":"0","tags":{"source_type":"RTR",...},"log":{"payload":"<base64>","type":"OUT"}}]}}`,
// gauges as `"gauge":{"metrics":{"cpu":{"unit":"percentage","value":12.5},"memory":{"unit":"bytes",...}}}`.
import { parseGorouterLine } from '../gorouter/parse.js';
import { LINE, LOG_CACHE } from '../../../core/reason-codes.js';

/**
 * @typedef {object} Envelope
 * @property {bigint} timestamp nanoseconds since the epoch
 * @property {string} sourceId
 * @property {string} instanceId
 * @property {Record<string, string>} tags
 * @property {{ payload: string, type: string } | undefined} log payload still base64
 * @property {Record<string, { unit: string, value: number }> | undefined} gauge
 */

/** int64 as protojson writes it (a decimal string); a plain number is taken too. @param {unknown} value */
function int64(value) {
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}

/** @param {unknown} value @returns {Record<string, string>} */
function stringMap(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string'));
}

/**
 * `deprecated_tags` (older agents): values are loggregator v2 `Value`s, `{"text": "..."}`,
 * `{"integer": "18"}` (int64 as a string) or `{"decimal": 0.8}`; each as text, as the Log Cache
 * CLI and the agents' taggers turn them into tags.
 * @param {unknown} value @returns {Record<string, string>}
 */
function deprecatedTagMap(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  /** @type {Record<string, string>} */
  const tags = {};
  for (const [name, v] of Object.entries(value)) {
    const data = v && typeof v === 'object' ? /** @type {Record<string, unknown>} */ (v) : {};
    const text = data.text ?? data.integer ?? data.decimal;
    if (typeof text === 'string' || typeof text === 'number') tags[name] = String(text);
  }
  return tags;
}

/**
 * The envelopes of one read answer, in the order given; malformed ones counted.
 * @param {any} body
 * @returns {{ envelopes: Envelope[], invalid: number } | undefined} undefined when the body is not a read answer
 */
export function parseReadBody(body) {
  const batch = body?.envelopes?.batch ?? (body?.envelopes && typeof body.envelopes === 'object' ? [] : undefined);
  if (!Array.isArray(batch)) return undefined;
  /** @type {Envelope[]} */
  const envelopes = [];
  let invalid = 0;
  for (const e of batch) {
    const timestamp = int64(e?.timestamp);
    // Tags take precedence; deprecated tags fill in what they lack (the Log Cache CLI's rule).
    const tags = { ...deprecatedTagMap(e?.deprecated_tags), ...stringMap(e?.tags) };
    const sourceId = typeof e?.source_id === 'string' && e.source_id !== '' ? e.source_id : tags.source_id;
    if (timestamp === undefined || typeof sourceId !== 'string') {
      invalid += 1;
      continue;
    }
    const log =
      e.log && typeof e.log.payload === 'string'
        ? { payload: e.log.payload, type: String(e.log.type ?? 'OUT') }
        : undefined;
    /** @type {Envelope['gauge']} */
    let gauge;
    if (e.gauge?.metrics && typeof e.gauge.metrics === 'object') {
      gauge = {};
      for (const [name, m] of Object.entries(e.gauge.metrics)) {
        // float64 values: protojson writes numbers, or "NaN"/"Infinity" as strings (never usable here).
        if (m && typeof m === 'object' && typeof (/** @type {any} */ (m).value) === 'number') {
          gauge[name] = { unit: String(/** @type {any} */ (m).unit ?? ''), value: /** @type {any} */ (m).value };
        }
      }
    }
    envelopes.push({
      timestamp,
      sourceId,
      instanceId: String(e.instance_id ?? ''),
      tags,
      log,
      gauge,
    });
  }
  return { envelopes, invalid };
}

/**
 * An RTR log envelope -> a RouterRequest, through the same gorouter parser as every router source.
 * @param {Envelope} envelope @param {{ correlationField?: string, appName?: string }} options
 * @returns {{ ok: true, record: import('../../../core/types.js').RouterRequest }
 *   | { ok: false, reason: string, ignored: boolean }}
 */
export function routerRequestFromEnvelope(envelope, options) {
  if (!envelope.log) return { ok: false, reason: LOG_CACHE.NOT_LOG, ignored: true };
  if (envelope.tags.source_type !== 'RTR') return { ok: false, reason: LINE.NOT_RTR, ignored: true };
  const line = parseGorouterLine(Buffer.from(envelope.log.payload, 'base64').toString('utf8'), options);
  // An RTR message with nothing in it, as `cf logs` shows it (`[RTR/n] OUT`): no request, no loss.
  if (!line.ok && line.reason === LINE.EMPTY) return { ok: false, reason: LINE.EMPTY_RTR, ignored: true };
  if (!line.ok) return { ok: false, reason: line.reason, ignored: false };
  line.record.appGuid ??= envelope.sourceId.toLowerCase();
  line.record.appName = envelope.tags.app_name ?? options.appName ?? null;
  return line;
}

/** Container gauge -> InstanceSample field; cpu, cpu_entitlement: already percent (of one core, of the entitlement). */
const CONTAINER_GAUGES = /** @type {const} */ ({
  cpu: 'cpuPercent',
  cpu_entitlement: 'cpuEntitlementPercent',
  memory: 'memBytes',
  memory_quota: 'memQuotaBytes',
  disk: 'diskBytes',
  disk_quota: 'diskQuotaBytes',
});

/**
 * Container gauges -> one InstanceSample per instance and gauge timestamp (gauges of one instance
 * with the same timestamp merge into one sample). Envelopes without container gauges are skipped.
 * @param {Envelope[]} envelopes
 * @param {{ appGuid: string, appName: string }} app
 * @returns {{ samples: import('../../../core/types.js').InstanceSample[], invalid: number }}
 */
export function instanceSamplesFromGauges(envelopes, app) {
  /** @type {Map<string, import('../../../core/types.js').InstanceSample>} */
  const byKey = new Map();
  let invalid = 0;
  for (const e of envelopes) {
    if (!e.gauge || !Object.keys(e.gauge).some((name) => name in CONTAINER_GAUGES)) continue;
    const index = /^\d{1,9}$/.test(e.instanceId) ? Number(e.instanceId) : NaN;
    if (!Number.isInteger(index)) {
      invalid += 1;
      continue;
    }
    const processType = e.tags.process_type || 'web';
    // Milliseconds, as every instance sample is kept (Cloud Controller polls included).
    const ts = new Date(Number(e.timestamp / 1_000_000n));
    const key = `${processType}/${index}/${ts.getTime()}`;
    let sample = byKey.get(key);
    if (!sample) {
      sample = {
        kind: 'instance_sample',
        ts,
        appGuid: app.appGuid,
        appName: app.appName,
        processType,
        instanceIndex: index,
        state: 'RUNNING',
        cpuPercent: null,
        cpuEntitlementPercent: null,
        memBytes: null,
        memQuotaBytes: null,
        diskBytes: null,
        diskQuotaBytes: null,
        uptimeSeconds: null,
      };
      byKey.set(key, sample);
    }
    for (const [name, metric] of Object.entries(e.gauge)) {
      const field = CONTAINER_GAUGES[/** @type {keyof typeof CONTAINER_GAUGES} */ (name)];
      if (field && Number.isFinite(metric.value) && metric.value >= 0) sample[field] = metric.value;
    }
  }
  return { samples: [...byKey.values()], invalid };
}
