// A stand-in for the Cloud Foundry syslog agent, for tests and benches only (not product code). It
// formats envelopes the way cloudfoundry/loggregator-agent-release src/pkg/egress/syslog/rfc5424.go
// does (with go-loggregator rfc5424/marshal.go), and sends them the way its writers do:
// https.go (one POST per message, Content-Type text/plain, any non-2xx is an error the retry writer
// retries with exponential backoff), https_batch.go (messages back to back in one body, sent at
// 512 KiB or every second) and tcp.go / tls.go (RFC 6587 octet counting: `<len> <msg>`).
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';

/**
 * @typedef {object} LogEnvelope
 * @property {bigint} timestamp ns
 * @property {string} sourceId the app guid
 * @property {string} instanceId
 * @property {Record<string, string>} tags e.g. source_type, app_name, organization_name, space_name
 * @property {string} payload
 * @property {'OUT' | 'ERR'} [type]
 */

/** sanitizeHostname: spaces -> '-', drop all but [-a-zA-Z0-9], drop trailing dashes. @param {string} s */
const sanitizeHostname = (s) =>
  s
    .replace(/\s+/g, '-')
    .replace(/[^-a-zA-Z0-9]+/g, '')
    .replace(/-+$/, '');
/** sanitizeProcID: spaces -> '-', drop non-graphic characters, drop trailing dashes. @param {string} s */
const sanitizeProcId = (s) =>
  s
    .replace(/\s+/g, '-')
    .replace(/[^\x21-\x7e]+/g, '')
    .replace(/-+$/, '');
/** escapeSDParam. @param {string} s */
const escapeSd = (s) => s.replace(/[\\"\]]/g, (c) => `\\${c}`);

/**
 * Go's time.Format("2006-01-02T15:04:05.999999-07:00") of a UTC time: trailing zeros of the
 * fraction dropped (the dot too), zone +00:00.
 * @param {bigint} ns
 */
export function goRfc5424Time(ns) {
  const ms = Number(ns / 1_000_000n);
  const micros = String((ns / 1000n) % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${new Date(ms).toISOString().slice(0, 19)}${micros ? `.${micros}` : ''}+00:00`;
}

/** BuildHostname: `org.space.app` when any of the three tags is present. @param {Record<string, string>} tags */
function hostnameOf(tags) {
  if (!('organization_name' in tags || 'space_name' in tags || 'app_name' in tags)) return '';
  return ['organization_name', 'space_name', 'app_name']
    .map((k) => sanitizeHostname(tags[k] ?? '').slice(0, 63))
    .join('.');
}

/** buildTagsStructuredData: one tags@47450 element, keys sorted. @param {Record<string, string>} tags */
function tagsSd(tags) {
  const keys = Object.keys(tags).sort();
  return keys.length ? `[tags@47450${keys.map((k) => ` ${k}="${escapeSd(tags[k])}"`).join('')}]` : '';
}

/**
 * toRFC5424LogMessage: the bytes of one log envelope as the agent writes them.
 * @param {LogEnvelope} e
 * @returns {Buffer}
 */
export function logMessage(e) {
  const priority = e.type === 'ERR' ? 11 : 14;
  const nil = (/** @type {string} */ x) => (x === '' ? '-' : x);
  const sourceType = sanitizeProcId(e.tags.source_type ?? '').toUpperCase();
  const procId = e.instanceId ? `[${sourceType.replace(/ /g, '-')}/${e.instanceId}]` : `[${sourceType}]`;
  let payload = e.payload.replace(/\0/g, '');
  if (!payload.endsWith('\n')) payload += '\n';
  const sd = tagsSd(e.tags) || '-';
  return Buffer.from(
    `<${priority}>1 ${goRfc5424Time(e.timestamp)} ${nil(hostnameOf(e.tags).slice(0, 255))} ${nil(e.sourceId.slice(0, 48))} ` +
      `${nil(procId.slice(0, 128))} - ${sd} ${payload}`,
  );
}

/**
 * toRFC5424GaugeMessage: one message per gauge metric, empty MSG and a trailing " \n".
 * @param {{ timestamp: bigint, sourceId: string, instanceId: string, tags: Record<string, string>,
 *   metrics: Record<string, { value: number, unit: string }> }} e
 * @returns {Buffer[]}
 */
export function gaugeMessages(e) {
  return Object.entries(e.metrics).map(([name, m]) =>
    Buffer.from(
      `<14>1 ${goRfc5424Time(e.timestamp)} ${hostnameOf(e.tags) || '-'} ${e.sourceId || '-'} ` +
        `[${e.instanceId}] - [gauge@47450 name="${escapeSd(name)}" value="${m.value}" unit="${escapeSd(m.unit)}"]${tagsSd(e.tags)} \n`,
    ),
  );
}

/**
 * An RTR envelope for a gorouter line, with the tags an app drain carries.
 * @param {string} line @param {{ appGuid: string, appName: string, routerIndex?: number, timestamp?: bigint }} o
 */
export function rtrEnvelope(line, { appGuid, appName, routerIndex = 0, timestamp = BigInt(Date.now()) * 1_000_000n }) {
  return {
    timestamp,
    sourceId: appGuid,
    instanceId: String(routerIndex),
    payload: line,
    tags: {
      source_type: 'RTR',
      app_id: appGuid,
      app_name: appName,
      organization_name: 'lab',
      space_name: 'perf',
      origin: 'gorouter',
    },
  };
}

/** The agent's ExponentialDuration, shortened for tests: 10 ms doubling, at most 500 ms. @param {number} attempt */
const retryDelay = (attempt) => Math.min(500, 10 * 2 ** attempt);

/**
 * POSTs a body as HTTPSWriter.sendHttpRequest does, retrying like the retry writer until a 2xx:
 * a refusal and a failed write (the connection closed under it) alike are retried.
 * @param {string} url @param {Buffer} body
 * @param {{ maxRetries?: number, onStatus?: (status: number) => void, signal?: AbortSignal }} [options]
 *   signal: stops the retries (the promise rejects with its reason)
 * @returns {Promise<number>} the last status, 0 when the last attempt got none
 */
export async function postUntilAccepted(url, body, options = {}) {
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    let status = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: new Uint8Array(body),
        signal: options.signal,
      });
      await response.arrayBuffer();
      status = response.status;
      options.onStatus?.(status);
    } catch (err) {
      if (attempt >= (options.maxRetries ?? 1000)) throw err;
    }
    if (status >= 200 && status <= 299) return status;
    if (attempt >= (options.maxRetries ?? 1000)) return status;
    await new Promise((r) => setTimeout(r, retryDelay(attempt)));
  }
}

/**
 * https-batch:// framing: messages back to back in bodies of at least `batchBytes` (the agent's
 * 512 KiB default), the last one smaller.
 * @param {Buffer[]} messages @param {number} [batchBytes]
 * @returns {Buffer[]}
 */
export function batchBodies(messages, batchBytes = 512 * 1024) {
  /** @type {Buffer[]} */
  const bodies = [];
  /** @type {Buffer[]} */
  let current = [];
  let size = 0;
  for (const m of messages) {
    current.push(m);
    size += m.length;
    if (size >= batchBytes) {
      bodies.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
  }
  if (current.length) bodies.push(Buffer.concat(current));
  return bodies;
}

/** tcp.go: `strconv.Itoa(len(msg)) + " " + string(msg)`, len in bytes. @param {Buffer} message */
export const octetCounted = (message) => Buffer.concat([Buffer.from(`${message.length} `), message]);

/**
 * A syslog:// (or syslog-tls://) connection.
 * @param {number} port @param {{ tls?: { ca: string } }} [options]
 */
export async function connectTcp(port, options = {}) {
  const socket = options.tls
    ? tls.connect({ port, host: '127.0.0.1', ca: options.tls.ca, servername: 'localhost' })
    : net.connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  await once(socket, options.tls ? 'secureConnect' : 'connect');
  return {
    socket,
    /** @param {Buffer} bytes */
    write: (bytes) =>
      new Promise((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve(undefined)))),
    async end() {
      socket.end();
      await once(socket, 'close');
    },
  };
}

/**
 * HTTPSBatchWriter.startSender: messages queue up and go out as one body when 512 KiB have gathered
 * or on every tick (1 s in the agent; shorter here), each body retried until a 2xx.
 * @param {string} url @param {{ intervalMs?: number, batchBytes?: number }} [options]
 */
export function startHttpsBatchWriter(url, { intervalMs = 100, batchBytes = 512 * 1024 } = {}) {
  /** @type {Buffer[]} */
  let queued = [];
  let size = 0;
  let sending = Promise.resolve();
  const send = () => {
    if (!queued.length) return sending;
    const body = Buffer.concat(queued);
    queued = [];
    size = 0;
    sending = sending.then(() => postUntilAccepted(url, body)).then(() => {});
    return sending;
  };
  const timer = setInterval(send, intervalMs);
  return {
    /** @param {Buffer} message */
    write(message) {
      queued.push(message);
      size += message.length;
      if (size >= batchBytes) void send();
    },
    /** Sends what is queued and waits until every body was accepted. */
    async close() {
      clearInterval(timer);
      await send();
    },
  };
}
