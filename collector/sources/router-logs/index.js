// Source `router-logs`: gorouter access logs from Elasticsearch/OpenSearch -> RouterRequest records,
// read window by window, page by page.
import { splitApps } from '../../../core/ids.js';
import { headerLogField } from './correlation-ids.js';
import { fieldNamesFor, lineFieldsFor, mapDocument } from './documents.js';
import { createSearchClient } from './search.js';

/**
 * @typedef {object} RouterPage
 * @property {import('./gorouter.js').RouterRequest[]} records none when `encoded`
 * @property {import('../../../core/types.js').EncodedRows} [encoded] the records, encoded as they
 *   were mapped (readWindow's `encode`)
 * @property {Map<string, number>} skipped malformed or foreign documents by reason
 * @property {Map<string, SkippedExample>} examples the first skipped document of each reason
 * @property {string} lastTimestamp the sort timestamp of the page's last document (ISO): every
 *   document before it has been read
 * @property {number} total documents the window held
 * @property {number} documents documents in this page
 */

/**
 * @typedef {object} SkippedExample
 * @property {string} id the document's `_index/_id`
 * @property {string[]} lookedIn the fields that were tried
 */

/**
 * @typedef {object} RouterLogSourceDeps
 * @property {import('pino').Logger} [log]
 * @property {import('../../../core/retry.js').BackoffOptions} [backoff]
 * @property {number} [pageSize]
 * @property {number} [timeoutMs]
 * @property {(reason: string) => void} [onRetry] counts a retried request by reason
 */

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
  // Only for skipped documents and debug lines: most documents never need it.
  /** @param {{ _index?: string, _id?: string }} hit */
  const idOf = (hit) => `${hit._index ?? '?'}/${hit._id ?? '?'}`;
  const queryFor = (/** @type {string} */ from, /** @type {string} */ to) =>
    windowQuery(fields, config.cf.apps, from, to);

  return {
    name: 'router-logs',
    client,
    /** Where the incremental reader keeps its position in ingest_checkpoints. */
    checkpointKey: `router-logs:${search.index}`,
    /**
     * The documents of [from, to), mapped, page by page in timestamp order. With `encode`, each
     * record is handed to it as soon as it is mapped and the page carries what it returns instead of
     * records: no record outlives V8's next young-generation collection, so none is copied or
     * promoted (fewer and shorter collections, less CPU: bench/ingest.bench.js).
     * @param {{ from: string, to: string, signal?: AbortSignal }} window
     * @param {{ encode?: (records: Iterable<import('./gorouter.js').RouterRequest>, count: number) =>
     *   import('../../../core/types.js').EncodedRows | undefined }} [options] `count`: the page's
     *   documents, an upper bound of its records
     * @returns {AsyncGenerator<RouterPage>}
     */
    async *readWindow({ from, to, signal }, { encode } = {}) {
      for await (const page of client.readAll({
        query: queryFor(from, to),
        sortField: fields.timestamp,
        signal,
      })) {
        /** @type {Map<string, number>} */
        const skipped = new Map();
        /** @type {Map<string, SkippedExample>} */
        const examples = new Map();
        const { hits } = page;
        const documents = hits.length;
        const lastSort = hits[documents - 1].sort?.[0];
        let progress = 'not begun';
        function* mapped() {
          progress = 'begun';
          for (let i = 0; i < documents; i++) {
            const hit = hits[i];
            // Each document is let go of once it is mapped: when V8 collects the young generation
            // meanwhile, it copies only the rest of the page (bench/ingest.bench.js).
            hits[i] = /** @type {any} */ (undefined);
            const result = mapDocument(hit._source, mapping);
            if (result.ok) {
              debug?.debug({ id: idOf(hit), field: result.from }, 'router-logs: gorouter request read');
              yield result.record;
            } else {
              skipped.set(result.reason, (skipped.get(result.reason) ?? 0) + 1);
              if (!examples.has(result.reason))
                examples.set(result.reason, { id: idOf(hit), lookedIn: result.lookedIn });
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
          }
          progress = 'done';
        }
        const encoded = encode?.(mapped(), documents);
        // Each document is gone once mapped: an encoder that stopped early (or took the records and
        // gave nothing back) would lose the rest, and the checkpoint would still move past them.
        if (progress === 'begun' || (progress === 'done' && !encoded))
          throw new Error('router-logs: encode must take every record of a page and return them encoded');
        const records = encoded ? [] : [...mapped()];
        const lastTimestamp = typeof lastSort === 'number' ? new Date(lastSort).toISOString() : String(lastSort ?? to);
        yield { records, encoded, skipped, examples, lastTimestamp, total: page.total, documents };
      }
    },
    async close() {
      client.close();
    },
  };
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
