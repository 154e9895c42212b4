// JSDoc typedefs shared across modules: normalized records and the Source / Sink contracts.

/**
 * One app instance at one poll. `cpuPercent` is percent of one core (the API's fraction x 100;
 * 250 = two and a half cores). Usage fields are null when the instance is not running or the
 * metrics backend had no numbers: never zero for "unknown".
 * @typedef {object} InstanceSample
 * @property {Date} ts
 * @property {string} appGuid
 * @property {string} appName
 * @property {string} processType
 * @property {number} instanceIndex
 * @property {string} state
 * @property {number | null} cpuPercent
 * @property {number | null} cpuEntitlementPercent
 * @property {number | null} memBytes
 * @property {number | null} memQuotaBytes
 * @property {number | null} diskBytes
 * @property {number | null} diskQuotaBytes
 * @property {number | null} uptimeSeconds
 */

/**
 * What a scheduler hands a source for one poll.
 * @typedef {object} PollContext
 * @property {AbortSignal} signal aborted on shutdown
 * @property {import('pino').Logger} log
 * @property {Date} now the poll's timestamp
 * @property {(reason: string, detail: string) => void} warn counts and logs a warning
 */

/**
 * A source returns records; it never writes to sinks or metrics, and throws SourceError (with the
 * records it already has) when it cannot finish.
 * @typedef {object} Source
 * @property {string} name
 * @property {(ctx: PollContext) => Promise<InstanceSample[]>} poll
 * @property {() => Promise<void>} [close]
 */

/**
 * `write` only buffers and never throws for I/O; `flush` does the I/O; `close` flushes once more
 * and releases, and is safe to call twice. `complete` tells whether the records are everything
 * the source saw (so a sink may forget what is absent).
 * @typedef {object} Sink
 * @property {string} name
 * @property {(records: InstanceSample[], meta: { source: string, complete: boolean }) => void} write
 * @property {() => Promise<void>} flush
 * @property {() => Promise<void>} close
 */

export {};
