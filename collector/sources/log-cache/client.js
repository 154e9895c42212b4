// Log Cache read API client: `GET /api/v1/read/<source id>` page by page (limit 1000, ascending,
// [start_time, end_time) in nanoseconds). The token and retries are the Cloud Controller client's.
import { SourceError } from '../../../core/errors.js';
import { LOG_CACHE } from '../../../core/reason-codes.js';
import { parseReadBody } from './envelopes.js';

/** Log Cache's largest page (README: "The max limit size is 1000"). */
export const PAGE_LIMIT = 1000;

/**
 * Pages of [start, end) for one source id, ascending. The next page starts at the last timestamp
 * read (inclusive: envelopes sharing it are read again and written idempotently), or one past it
 * when a whole page shares one timestamp.
 * @param {(url: string, signal?: AbortSignal) => Promise<any>} get the JSON body of a GET with the UAA token
 * @param {{ baseUrl: string, sourceId: string, start: bigint, end: bigint, signal?: AbortSignal }} window
 */
export async function* readEnvelopes(get, { baseUrl, sourceId, start, end, signal }) {
  let from = start;
  while (from < end) {
    const url =
      `${baseUrl}/api/v1/read/${encodeURIComponent(sourceId)}?start_time=${from}&end_time=${end}` +
      `&envelope_types=LOG&envelope_types=GAUGE&limit=${PAGE_LIMIT}`;
    const body = await get(url, signal);
    const page = parseReadBody(body);
    if (!page)
      throw new SourceError(`log-cache: GET ${url.replace(baseUrl, '')} did not answer an envelope batch`, {
        reason: LOG_CACHE.BAD_PAYLOAD,
      });
    const last = page.envelopes.length ? page.envelopes[page.envelopes.length - 1].timestamp : end;
    yield { ...page, position: last };
    if (page.envelopes.length + page.invalid < PAGE_LIMIT) return;
    from = last > from ? last : last + 1n;
  }
}
