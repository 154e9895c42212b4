// The sizes and times that trade memory, speed and latency against each other, in one place.
// Settings a user may change live in collector/config/settings.js; these are the fixed ones.

/** PostgreSQL connections a process holds at most (writes in flight, the drain, queries). */
export const POOL_SIZE = 4;

/**
 * Connections that compute a report's runs side by side (each its own runs, on one snapshot): two
 * use a second core of the server; each may hold a few times PostgreSQL's work_mem for a big run.
 */
export const REPORT_CONNECTIONS = 2;

/** Router requests per page of a line source (file, stdin) before it is written. */
export const LINE_PAGE_ROWS = 5000;

/**
 * Pages written at once on the page path: page n is copied while n-1 commits and n+1 is read
 * (pipeline/ordered-writes.js keeps their rows and commits in order).
 */
export const WRITES_IN_FLIGHT = 2;

/**
 * Reads of a window again after its search context was lost (an expired point in time, an
 * interrupted scroll); each resumes from the last committed page.
 */
export const CONTEXT_REOPENS = 3;

/** Characters of a skipped line shown as an example. */
export const LINE_EXAMPLE_CHARS = 80;

/** Log Cache envelopes reach the cache a moment after they happen (agent batching): read up to now minus this. */
export const LOG_CACHE_SETTLE_MS = 2000;

/**
 * The correlation counts of recent runs are refreshed at most this often while a pushed source stores
 * router rows (each refresh is a pass over the recent runs' requests).
 */
export const CORRELATION_REFRESH_MS = 15_000;

/** Drain: a batch smaller than DRAIN_BATCH_ROWS waits at most this long. */
export const DRAIN_FLUSH_INTERVAL_MS = 250;
/** Drain: router requests per COPY. */
export const DRAIN_BATCH_ROWS = 5000;
/**
 * Drain: a write waits this long for the migrations, then fails (and is retried with backoff):
 * a write that waited without limit would leave the drain reporting ok while it refuses everything.
 */
export const DRAIN_SCHEMA_WAIT_MS = 5000;

/** `collect` stops within this budget (the platform's grace before SIGKILL is longer). */
export const SHUTDOWN_BUDGET_MS = 10_000;
/** After this long a poll in flight at shutdown is aborted, leaving time to flush and close. */
export const POLL_GRACE_MS = 5_000;

/**
 * `compare`'s latency histograms, filled by PostgreSQL and read by the statistics alike: bucket k holds
 * (γ^(k-1), γ^k] ms; times below the minimum share its bucket (a clock's resolution, not a latency).
 */
export const LATENCY_BUCKET_GAMMA = 1.01;
export const LATENCY_BUCKET_MIN_MS = 0.001;

/**
 * Characters a CSV record of load results may hold unfinished: past it, a quote left open is one
 * unreadable line and reading goes on from the next (a parser would otherwise re-read the remainder).
 */
export const CSV_RECORD_MAX_CHARS = 1 << 20;
