// The records that flow from sources to sinks, each carrying its kind; the two source contracts
// (a polled Source, a PagedSource) and the two that write: a Sink (buffered, for live samples) and a
// PageWriter (transactional pages).

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
 * @property {boolean} [repeated] the platform had not measured again: the instance's previous reading
 *   (Prometheus shows it; PostgreSQL stores each reading once)
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
 * A polled source (Cloud Controller): on each tick it returns the records it sees now; it never
 * writes to sinks or metrics, and throws SourceError (with the records it already has) when it
 * cannot finish. The pipeline (pipeline/poller.js) hands the records to every sink.
 * @template {PaasmonRecord} [R=PaasmonRecord]
 * @typedef {object} Source
 * @property {string} name
 * @property {(ctx: PollContext) => Promise<R[]>} poll
 * @property {() => Promise<void>} [close]
 */

/**
 * @template {PaasmonRecord} [R=PaasmonRecord]
 * @typedef {Source<R>} PolledSource
 */

/**
 * The first skipped item of a reason, to show a user where to look.
 * @typedef {object} SkippedExample
 * @property {string} id e.g. the document's `_index/_id`, `line 12`
 * @property {string[]} lookedIn the fields that were tried
 */

/**
 * One page of a paged source: records (or the same rows already encoded for COPY), what it skipped
 * by reason code (core/reason-codes.js), and the position after it. The pipeline writes the page
 * and its checkpoint in one transaction, so the position only moves past stored rows.
 * @typedef {object} SourcePage
 * @property {RecordKind} kind
 * @property {PaasmonRecord[]} records none when `encoded`
 * @property {EncodedRows} [encoded] the records, encoded as they were read (ReadOptions.encode)
 * @property {Map<string, number>} skipped items not stored, by reason code
 * @property {Map<string, SkippedExample>} [examples] the first skipped item of each reason
 * @property {number} read items the page looked at (documents, lines, envelopes), skipped ones included
 * @property {string} [position] the checkpoint after this page; none for a page that only rides
 *   along with the next one (Log Cache's instance samples before the router rows of the same read)
 * @property {{ number: number, text: string }} [firstLine] the first line that is not blank (line sources)
 */

/**
 * What the pipeline hands a paged source for one read.
 * @typedef {object} ReadOptions
 * @property {string} [until] where to stop (exclusive), in the source's own position terms (search: a
 *   timestamp; Log Cache: nanoseconds); default: what the source holds now
 * @property {AbortSignal} [signal]
 * @property {(kind: RecordKind, records: Iterable<PaasmonRecord>, count: number) => EncodedRows | undefined} [encode]
 *   encodes records as they come (a source may instead yield them as objects)
 */

/**
 * A paged source (router logs from search, a file or Log Cache): reads from a checkpoint on and
 * yields pages; it never writes, counts metrics or imports a sink. Skips are counted per page, and
 * one pipeline (pipeline/pages.js) writes every paged source's pages, accounts skips and moves
 * the checkpoint. A push source (the syslog drain) hands its records to the same page writer.
 * @typedef {object} PagedSource
 * @property {string} name
 * @property {string} [checkpointKey] where the position is kept in ingest_checkpoints
 * @property {(checkpoint: string | undefined, options?: ReadOptions) => AsyncIterable<SourcePage>} readPages
 *   the pages after `checkpoint` (undefined: from the source's own start)
 * @property {(err: unknown) => boolean} [resumable] true when reading again from the last stored
 *   position may succeed (a search context that expired)
 * @property {() => Promise<void>} [close]
 */

/**
 * A scheduled paged source as the registry makes it (collector/sources/registry.js): the reads of one
 * run; the pipeline stores their pages and does what follows stored router rows once, for every source.
 * @typedef {object} ScheduledPagedSource
 * @property {string} name the job's name, in logs, metrics and /healthz
 * @property {(ctx: PollContext) => Promise<PagedRead[]>} reads this run's reads (Log Cache: one per app)
 * @property {readonly string[]} [judgedSkips] with it, the skipped share of recent runs is judged (a verdict
 *   in /healthz and a warning), these reasons aside as no loss (EXPECTED_SKIPS); without it, not judged
 * @property {string} [each] what one read is ('app'), when a run's reads fail one by one
 * @property {() => Promise<void> | void} [close]
 */

/**
 * One checkpointed read of a run.
 * @typedef {object} PagedRead
 * @property {PagedSource & { checkpointKey: string }} source
 * @property {{ delayMs: number, lookbackMs: number }} [window] read by time (search): from the checkpoint
 *   (or now - delay - lookback) to now - delay; without it, from the checkpoint to what the source holds
 * @property {(reason: string, n: number) => string} [describeSkip] a warning's text
 * @property {(err: unknown) => Error} [explain] a failed read, told in the source's words; the others go on
 */

/**
 * A push source as the registry makes it: started once with the pipeline's intake.
 * @typedef {object} PushedSource
 * @property {string} name
 * @property {(openIntake: OpenIntake) => Promise<{ stop: () => Promise<void> }>} start
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
 * @property {boolean} [observedByCaller] an encoded page whose caller keeps what it needs of its rows: when all
 *   were new, none is read back (Inserted.records is empty, its count all of them). A page of records
 *   never reads back rows that were all new: Inserted.records is then the page's own records
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
 * @property {number} [cleaned] rows with text cleaned as they were encoded (exporters/postgres/rows/clean-text.js)
 * @property {() => void} [onWritten] called once the rows are in the database: `data` may be reused
 */

/**
 * What the write of a page inserted: how many rows (a plain COPY of fresh keys: all of the page's),
 * and their records (none when the page was `countOnly`; see `observedByCaller`).
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

/**
 * Where a push source (the syslog drain) hands its records: buffered and written by the pipeline
 * as pages (collector/pipeline/pushed-pages.js). `write` only buffers; `close` writes what is left.
 * @typedef {object} Intake
 * @property {(records: Iterable<PaasmonRecord>, onUnusable: (error: Error) => void) => number} write records of
 *   one kind, encoded as they come (a generator's never all exist at once); a record a value of which cannot be
 *   encoded is left out and told to `onUnusable`, the others kept; returns how many were encoded
 * @property {(options?: { force?: boolean }) => Promise<void>} flush
 * @property {() => Promise<void>} close
 * @property {number} pending records not written yet
 * @property {number} dropped records let go of past the buffer's bound
 * @property {Error | undefined} lastError
 */

/**
 * Opens the intake of a push source, which is told what was stored (with `observe`, a tally of the router
 * requests inserted) and how much waits.
 * @typedef {(hooks: { maxBuffered: number, observe: boolean, onStored: (records: number, inserted: Inserted,
 *   observed?: RouterRequestSets) => void, onPending: (pending: number) => void }) => Intake} OpenIntake
 */

/**
 * Router requests counted per label set of the Prometheus sink (core/router-request-tally.js tallies them).
 * @typedef {object} RouterRequestSets
 * @property {number} count requests in all
 * @property {() => Array<{ labels: { app: string, status_class: string }, count: number, responseTimesMs: number[] }>}
 *   sets each label set's requests, and the response times of those that have one, in the order they came
 */

/**
 * TLS settings for PostgreSQL from a service binding's credentials: PEM text, not files.
 * @typedef {object} DatabaseTls
 * @property {string} [sslmode] disable, allow, prefer, require, verify-ca, verify-full or no-verify
 * @property {string} [ca] sslrootcert: the CA that signed the server's certificate
 * @property {string} [cert] sslcert: the client certificate
 * @property {string} [key] sslkey: its private key
 */

export {};

/**
 * One run of `compare`, as its query returns it (exporters/postgres/queries/compare.js) and its statistics read it
 * (report/compare/): the steady window's requests in time-ordered blocks.
 * @typedef {object} CompareBlock
 * @property {number} n requests sent in the block
 * @property {number} errors no response or a 5xx
 * @property {number} ok status 1..499
 * @property {number} e2eSum ms
 * @property {number} matched requests with a router record (response_time and gorouter_time)
 * @property {number} matchedE2eSum ms, of the matched requests
 * @property {number} outsideSum ms: e2e − response_time
 * @property {number} routerSum ms: gorouter_time
 * @property {number} behindSum ms: response_time − gorouter_time
 * @property {Array<[number, number]>} hist e2e histogram: [bucket, count]
 * @typedef {{ matched: number, n: number, outsideSum: number, routerSum: number, behindSum: number }}
 *   CompareBucketLayers
 * @typedef {object} CompareRunData
 * @property {Record<string, any>} run the run's row (test_runs) with window_s
 * @property {CompareBlock[]} blocks equal lengths of time, in order
 * @property {Map<number, CompareBucketLayers>} buckets per e2e bucket, the run's layer sums (the tail's breakdown)
 * @property {Map<string, Array<{ block: number, n: number, e2eSum: number }>>} paths per router path
 * @property {Array<{ cpu: number | null, mem: number | null }>} usage per sampling moment of the app, in order:
 *   CPU summed over instances (% of one core), memory (bytes)
 */
