// Source `router-logs`: gorouter access logs from Elasticsearch/OpenSearch -> RouterRequest records,
// a paged source (core/types.js PagedSource): read window by window, page by page.
import { splitApps } from '../../../core/ids.js';
import { EXPECTED_SKIPS, SEARCH } from '../../../core/reason-codes.js';
import { headerLogField } from '../gorouter/correlation-ids.js';
import { fieldNamesFor, lineFieldsFor, mapDocument } from './documents.js';
import { createSearchClient } from './search.js';

/** @typedef {import('../../../core/types.js').SkippedExample} SkippedExample */
/** @typedef {import('../../../core/types.js').SourcePage} SourcePage */

/**
 * @typedef {object} RouterLogSourceDeps
 * @property {import('pino').Logger} [log]
 * @property {import('../../../core/retry.js').BackoffOptions} [backoff]
 * @property {number} [pageSize]
 * @property {number} [stretchDocs] documents per stretch of a window read over a point in time
 * @property {number} [timeoutMs]
 * @property {(reason: string) => void} [onRetry] counts a retried request by reason
 */

/**
 * The search store as `collect` reads it: a window a run, from the checkpoint to now - INGEST_DELAY.
 * @param {import('../../config/index.js').Config} config @param {RouterLogSourceDeps} [deps]
 * @returns {import('../../../core/types.js').ScheduledPagedSource}
 */
export function searchJobSource(config, deps) {
  const source = createRouterLogSource(config, deps);
  const window = { delayMs: config.ingestDelayMs, lookbackMs: config.ingestLookbackMs };
  return {
    name: source.name,
    reads: async () => [{ source, window }],
    judgedSkips: EXPECTED_SKIPS.documents,
    close: () => source.close(),
  };
}

/**
 * @param {import('../../config/index.js').Config} config
 * @param {RouterLogSourceDeps} [deps]
 */
export function createRouterLogSource(config, deps = {}) {
  const search = config.search;
  if (!search.url) throw new Error('router-logs source needs SEARCH_URL');
  const format = /** @type {'auto' | 'logsearch' | 'raw'} */ (search.format);
  const fields = fieldNamesFor(format, search.fields);
  const lineFields = lineFieldsFor(format, fields);
  const mapping = { fields, format, lineFields, correlationField: headerLogField(config.correlationHeader) };
  const debug = deps.log?.isLevelEnabled('debug') ? deps.log : undefined;
  const client = createSearchClient({ ...search, url: search.url }, deps);

  /**
   * The documents of [checkpoint, until), mapped, page by page; a page's position (where a read
   * may resume once it is stored) is the reader's (search.js), the last (empty) page's is `until`. With
   * `encode`, each record is handed to it as soon as it is mapped and the page carries what it
   * returns instead of records: no record outlives V8's next young-generation collection, so none
   * is copied or promoted (fewer and shorter collections, less CPU: bench/ingest.bench.js).
   * @param {string | undefined} checkpoint @param {import('../../../core/types.js').ReadOptions} [options]
   * @returns {AsyncGenerator<SourcePage>}
   */
  async function* readPages(checkpoint, { until, signal, encode } = {}) {
    if (!checkpoint || !until) throw new Error('router-logs: readPages needs a window: a checkpoint and until');
    const query = windowQuery(fields, config.cf.apps, checkpoint, until);
    const span = { from: checkpoint, to: until };
    for await (const { hits, position } of client.readAll({ query, sortField: fields.timestamp, span, signal }))
      yield hits.length ? mapPage(hits, { mapping, debug, encode, position }) : positionOnly(position);
    yield positionOnly(until);
  }

  return {
    name: 'router-logs',
    client,
    /** Where the incremental reader keeps its position in ingest_checkpoints. */
    checkpointKey: `router-logs:${search.index}`,
    readPages,
    /**
     * The pages of [from, to) with the documents each held (readPages without its closing page).
     * @param {{ from: string, to: string, signal?: AbortSignal }} window
     * @param {{ encode?: (records: Iterable<any>, count: number) => import('../../../core/types.js').EncodedRows
     *   | undefined }} [options]
     */
    async *readWindow({ from, to, signal }, { encode } = {}) {
      const byKind =
        encode &&
        ((/** @type {any} */ _kind, /** @type {any} */ records, /** @type {number} */ count) => encode(records, count));
      for await (const page of readPages(from, { until: to, signal, encode: byKind }))
        if (page.read) yield { ...page, documents: page.read };
    },
    /** A search context lost (an expired point in time, an interrupted scroll) is read again. */
    resumable: (/** @type {unknown} */ err) => CONTEXT_LOST.has(/** @type {any} */ (err)?.reason),
    async close() {
      client.close();
    },
  };
}

const CONTEXT_LOST = new Set([SEARCH.PIT_EXPIRED, SEARCH.SEARCH_CONTEXT_LOST]);

/**
 * A page that holds no documents, only where a read may resume.
 * @param {string | undefined} position @returns {SourcePage}
 */
const positionOnly = (position) => ({ kind: 'router_request', records: [], skipped: new Map(), read: 0, position });

/** Only for skipped documents and debug lines: most documents never need it. */
const idOf = (/** @type {{ _index?: string, _id?: string }} */ hit) => `${hit._index ?? '?'}/${hit._id ?? '?'}`;

/**
 * One page of search hits -> a SourcePage of router requests (encoded when `encode` is given).
 * @param {any[]} hits emptied as they are mapped
 * @param {{ mapping: Parameters<typeof mapDocument>[1], debug: import('pino').Logger | undefined,
 *   encode: import('../../../core/types.js').ReadOptions['encode'], position: string | undefined }} options
 * @returns {SourcePage}
 */
function mapPage(hits, { mapping, debug, encode, position }) {
  /** @type {Map<string, number>} */
  const skipped = new Map();
  /** @type {Map<string, SkippedExample>} */
  const examples = new Map();
  const documents = hits.length;
  let progress = 'not begun';
  function* mapped() {
    progress = 'begun';
    for (let i = 0; i < documents; i++) {
      const hit = hits[i];
      // Each document is let go of once it is mapped: when V8 collects the young generation
      // meanwhile, it copies only the rest of the page (bench/ingest.bench.js).
      hits[i] = undefined;
      const result = mapDocument(hit._source, mapping);
      if (result.ok) {
        debug?.debug({ id: idOf(hit), field: result.from }, 'router-logs: gorouter request read');
        yield result.record;
        continue;
      }
      skipped.set(result.reason, (skipped.get(result.reason) ?? 0) + 1);
      if (!examples.has(result.reason)) examples.set(result.reason, { id: idOf(hit), lookedIn: result.lookedIn });
      debug?.debug(
        {
          id: idOf(hit),
          reason: result.reason,
          lookedIn: result.lookedIn,
          document: JSON.stringify(hit._source).slice(0, 500),
        },
        'router-logs: document skipped',
      );
    }
    progress = 'done';
  }
  const encoded = encode?.('router_request', mapped(), documents);
  // Each document is gone once mapped: an encoder that stopped early (or took the records and
  // gave nothing back) would lose the rest, and the checkpoint would still move past them.
  if (progress === 'begun' || (progress === 'done' && !encoded))
    throw new Error('router-logs: encode must take every record of a page and return them encoded');
  const records = encoded ? [] : [...mapped()];
  return { kind: 'router_request', records, encoded, skipped, examples, read: documents, position };
}

/**
 * The search query of [from, to): router documents of the watched apps (CF_APPS: names, or GUIDs
 * matched lower-cased, as the platform writes them).
 * @param {ReturnType<typeof fieldNamesFor>} fields @param {readonly string[]} watched
 * @param {string} from @param {string} to
 */
export function windowQuery(fields, watched, from, to) {
  const { guids, names } = splitApps(watched);
  /** @type {object[]} */
  const filter = [{ range: { [fields.timestamp]: { gte: from, lt: to, format: 'strict_date_optional_time' } } }];
  if (fields.sourceType) filter.push({ match: { [fields.sourceType]: 'RTR' } });
  const apps = [
    ...names.map((n) => ({ match_phrase: { [fields.appName]: n } })),
    ...guids.map((g) => ({ match_phrase: { [fields.appGuid]: g } })),
  ];
  if (apps.length) filter.push({ bool: { should: apps, minimum_should_match: 1 } });
  return { bool: { filter } };
}

/** @typedef {ReturnType<typeof createRouterLogSource>} RouterLogSource */
