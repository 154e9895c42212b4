// Every reason a source gives for an item it skipped, dropped or failed on: the label of
// paasmon_*{reason} metrics, the keys of ingest results and /healthz. One frozen list, so a
// dashboard, an alert or EXPECTED_SKIPS never names a reason no source gives.

/** Why a router log line or document is not a router request. */
export const LINE = Object.freeze({
  NOT_TEXT: 'not_text',
  NOT_RTR: 'not_rtr',
  EMPTY_RTR: 'empty_rtr',
  EMPTY: 'empty',
  TRUNCATED: 'truncated',
  NOT_GOROUTER: 'not_gorouter',
  BAD_TIMESTAMP: 'bad_timestamp',
  MISSING_TIMESTAMP: 'missing_timestamp',
  BAD_STATUS: 'bad_status',
  BAD_BYTES: 'bad_bytes',
  BAD_DURATION: 'bad_duration',
  NOT_OBJECT: 'not_object',
  MISSING_MESSAGE: 'missing_message',
  UNKNOWN_FORMAT: 'unknown_format',
});

/** Why the search source stopped reading. */
export const SEARCH = Object.freeze({
  AUTH: 'auth',
  INDEX_NOT_FOUND: 'index_not_found',
  PIT_EXPIRED: 'pit_expired',
  SEARCH_CONTEXT_LOST: 'search_context_lost',
  INCOMPLETE_READ: 'incomplete_read',
});

/** Log Cache envelopes skipped, and why a read failed. */
export const LOG_CACHE = Object.freeze({
  NOT_LOG: 'not_log',
  BAD_ENVELOPE: 'bad_envelope',
  BAD_INSTANCE_ID: 'bad_instance_id',
  BAD_PAYLOAD: 'bad_payload',
  DISCOVERY: 'discovery',
  NO_ACCESS: 'log_cache_no_access',
});

/** Syslog drain messages and frames not stored. */
export const DRAIN = Object.freeze({
  NOT_RFC5424: 'not_rfc5424',
  BAD_STRUCTURED_DATA: 'bad_structured_data',
  /** A value the parse let through that its column cannot hold (the record is left out, its page kept). */
  BAD_VALUE: 'bad_value',
  TOO_LARGE: 'too_large',
  BAD_FRAME: 'bad_frame',
  INCOMPLETE_FRAME: 'incomplete_frame',
  SHUTDOWN: 'shutdown',
  BUFFER_FULL: 'buffer_full',
});

/** Cloud Controller warnings and failures. */
export const CLOUD_CONTROLLER = Object.freeze({
  APP_NOT_FOUND: 'app_not_found',
  AMBIGUOUS_APP_NAME: 'ambiguous_app_name',
  STATS_UNAVAILABLE: 'stats_unavailable',
  BAD_USAGE: 'bad_usage',
  BAD_PAYLOAD: 'bad_payload',
  DISCOVERY: 'discovery',
  AUTH: 'auth',
  NOT_FOUND: 'not_found',
});

/** Lines of a load tool's results that are no request. */
export const LOAD_RESULTS = Object.freeze({
  SHORT_ROW: 'short_row',
  BAD_NUMBER: 'bad_number',
  BAD_TIME: 'bad_time',
  BAD_JSON: 'bad_json',
  NOT_VEGETA: 'not_vegeta',
  NOT_K6: 'not_k6',
  NOT_GATLING: 'not_gatling',
  CSV_FRAMING: 'csv_framing',
  XML_FRAMING: 'xml_framing',
  CORRUPT: 'corrupt',
  TRUNCATED: 'truncated',
  NO_RUN_RECORD: 'no_run_record',
});

/**
 * Why a request to an HTTP API failed (Cloud Controller, UAA, Log Cache, the search server); a status
 * without a reason of its own is `http_<status>`.
 */
export const HTTP = Object.freeze({
  TLS: 'tls',
  TIMEOUT: 'timeout',
  NETWORK: 'network',
  BAD_RESPONSE: 'bad_response',
  RATE_LIMITED: 'rate_limited',
});

/**
 * The error of a request that got no response, in the `error` column of load-generator requests:
 * paasmon's load generator and the tools' results it imports name them alike.
 */
export const REQUEST_ERROR = Object.freeze({
  TIMEOUT: 'timeout',
  REFUSED: 'refused',
  RESET: 'reset',
  OTHER: 'other',
});

/** Why a scheduled job warned or failed, apart from its source's own reasons. */
export const JOB = Object.freeze({
  ERROR: 'error',
  CLAIMS_UNAVAILABLE: 'claims_unavailable',
});

/**
 * Reasons that are not a loss: lines of other sources in `cf logs` output (not_rtr) and router
 * messages with nothing in them (empty_rtr). In a file or stdin, lines that are no gorouter line at
 * all (the cf CLI's banner, blank lines) are other output too; in a search index filtered to RTR they are not.
 */
/** @type {Readonly<{ documents: readonly string[], lines: readonly string[] }>} */
export const EXPECTED_SKIPS = Object.freeze({
  documents: Object.freeze([LINE.NOT_RTR, LINE.EMPTY_RTR]),
  lines: Object.freeze([LINE.NOT_RTR, LINE.EMPTY_RTR, LINE.NOT_GOROUTER, LINE.EMPTY]),
});

/** Every reason code above. @type {ReadonlySet<string>} */
export const ALL_REASONS = Object.freeze(
  new Set(
    [LINE, SEARCH, LOG_CACHE, DRAIN, CLOUD_CONTROLLER, LOAD_RESULTS, HTTP, JOB].flatMap((codes) =>
      Object.values(codes),
    ),
  ),
);
