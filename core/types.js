// The records that flow from sources to sinks, each carrying its kind, and the two contracts
// that move them: a Sink (buffered, for live samples) and a PageWriter (transactional pages).

/**
 * One app instance at one poll. `cpuPercent` is percent of one core (the API's fraction x 100;
 * 250 = two and a half cores). Usage fields are null when the instance is not running or the
 * metrics backend had no numbers: never zero for "unknown".
 * @typedef {object} InstanceSample
 * @property {'instance_sample'} kind
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
 * One request as the router logged it.
 * @typedef {object} RouterRequest
 * @property {'router_request'} kind
 * @property {string} receivedAt UTC, RFC 3339 with microseconds (what PostgreSQL keeps)
 * @property {string | null} appGuid
 * @property {string | null} appName
 * @property {number | null} appIndex
 * @property {string | null} instanceId
 * @property {string | null} method
 * @property {string | null} path
 * @property {number | null} status
 * @property {number | null} responseTimeMs
 * @property {number | null} gorouterTimeMs
 * @property {number | null} responseTimeResolutionMs null when exact; 1 when the store kept whole milliseconds only
 * @property {number | null} bytesReceived
 * @property {number | null} bytesSent
 * @property {string | null} vcapRequestId
 * @property {string | null} correlationId lower-case UUID form when the id allows it
 * @property {string | null} routerError
 * @property {string | null} traceId 32 lower-case hex (a 64-bit B3 id left-padded with zeros)
 */

/**
 * One request as the load generator sent it. `runId` and `worker` are set by the recorder.
 * @typedef {object} LoadgenRequest
 * @property {'loadgen_request'} kind
 * @property {string} correlationId
 * @property {Date | string} startedAt when the request was due (open model) or sent (closed model)
 * @property {number} durationMs
 * @property {number} status 0 when no response arrived
 * @property {string | null} error timeout, refused, reset, or the error code
 * @property {number} [runId]
 * @property {string} [worker]
 * @property {string | null} [tool] the tool whose results were imported (paasmon import); absent for paasmon's own
 * @property {string | null} [method]
 * @property {string | null} [url] the URL, or the tool's label for it
 * @property {number | null} [bytes] response bytes
 */

/** @typedef {InstanceSample | RouterRequest | LoadgenRequest} PaasmonRecord */
/** @typedef {PaasmonRecord['kind']} RecordKind */

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
 * @template {PaasmonRecord} [R=PaasmonRecord]
 * @typedef {object} Source
 * @property {string} name
 * @property {(ctx: PollContext) => Promise<R[]>} poll
 * @property {() => Promise<void>} [close]
 */

/**
 * A sink keys its behaviour on each record's kind. `write` only buffers and never throws for I/O;
 * `flush` does the I/O; `close` flushes once more and releases, and is safe to call twice.
 * `complete` tells whether the records are everything the source saw (so a sink may forget what
 * is absent, e.g. an instance scaled away).
 * @typedef {object} Sink
 * @property {string} name
 * @property {(records: PaasmonRecord[], meta?: { complete: boolean }) => void} write
 * @property {() => Promise<void>} flush
 * @property {() => Promise<void>} close
 */

/**
 * A page of records of one kind, and where the reader stands after it.
 * @typedef {object} Page
 * @property {RecordKind} kind
 * @property {PaasmonRecord[]} records
 * @property {boolean} [countOnly] the caller counts the rows inserted and needs nothing of them:
 *   they are not read back (reading them back costs router-log ingest CPU)
 * @property {EncodedRows} [encoded] rows already encoded for COPY (then `records` is empty): the load
 *   generator encodes each request as it completes, router-log ingest each record as it is mapped,
 *   instead of keeping an object per record
 * @property {{ source: string, position: string }} [checkpoint]
 * @property {Promise<unknown>} [commitAfter] the page's transaction saves its checkpoint and
 *   commits only once this settles well (the write of the page before): pages are copied in
 *   parallel but commit in order; if it fails, this page is rolled back too
 * @property {Promise<unknown>} [copyAfter] the page's rows go into the table only once this settles
 *   (the page before has copied its rows, or its write has ended): a row in both pages then makes
 *   only the later one wait, never each for the other (the earlier one waiting for the later's row
 *   while the later waits to commit after it)
 * @property {() => void} [onCopied] called once the page's rows are in the table, uncommitted
 */

/**
 * Rows of one kind already encoded as the tuples of a binary-format COPY (no header; COPY adds it),
 * in the kind's column order.
 * @typedef {object} EncodedRows
 * @property {Buffer} data
 * @property {number} rows
 * @property {number} [cleaned] rows with text cleaned as they were encoded (exporters/postgres/clean-text.js)
 * @property {() => void} [onWritten] called once the rows are in the database: `data` may be reused
 */

/**
 * What the write of a page inserted: how many rows (a plain COPY of fresh keys: all of the page's),
 * and their records (none when the page was `countOnly`).
 * @typedef {object} Inserted
 * @property {number} count
 * @property {PaasmonRecord[]} records
 * @property {number} [cleaned] records of the page stored with cleaned text (new or already there)
 */

/**
 * Writes a page in one transaction: its rows and its checkpoint commit together or not at all,
 * so a reader never moves past rows that are not stored. Rows already present are skipped, and
 * only the rows inserted now are counted and returned (so counting them never counts twice).
 * @typedef {(page: Page) => Promise<Inserted>} PageWriter
 */

export {};
