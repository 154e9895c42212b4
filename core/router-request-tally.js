// Router requests counted per label set of the Prometheus sink (app, status class) as they pass, so the
// sink moves its counter once per set and its histogram once per set, and a page waiting for its write
// keeps only a number per request (its response time, in an array of numbers), not an object.
import { statusClass } from './ids.js';

/**
 * @typedef {object} RouterRequestSet the requests of one label set
 * @property {{ app: string, status_class: string }} labels
 * @property {number} count requests, with a response time or not
 * @property {number[]} responseTimesMs those of the requests that have one, in the order they came
 */

/** @typedef {ReturnType<typeof createRouterRequestTally>} RouterRequestTally */

/** @param {number | null} status */
const classKey = (status) => (status ? Math.floor(status / 100) : 'none');

export function createRouterRequestTally() {
  /** @type {Map<string, Map<number | string, RouterRequestSet>>} by app, then by the status's hundreds */
  const byApp = new Map();
  /** @type {RouterRequestSet[]} */
  const sets = [];
  // Requests of one app and class usually come in runs: the set of the last one is checked first.
  /** @type {RouterRequestSet | undefined} */
  let last;
  let lastApp = '';
  /** @type {number | string} */
  let lastClass = '';
  let total = 0;

  /** @param {import('./types.js').RouterRequest} request */
  function setOf(request) {
    const app = request.appName ?? '';
    const key = classKey(request.status);
    if (last && app === lastApp && key === lastClass) return last;
    let classes = byApp.get(app);
    if (!classes) byApp.set(app, (classes = new Map()));
    let set = classes.get(key);
    if (!set) {
      set = { labels: { app, status_class: statusClass(request.status) }, count: 0, responseTimesMs: [] };
      classes.set(key, set);
      sets.push(set);
    }
    last = set;
    lastApp = app;
    lastClass = key;
    return set;
  }

  return {
    /** @param {import('./types.js').RouterRequest} request */
    add(request) {
      const set = setOf(request);
      set.count += 1;
      total += 1;
      if (request.responseTimeMs !== null) set.responseTimesMs.push(request.responseTimeMs);
    },
    /**
     * Takes back the request added last (one that was not stored after all).
     * @param {import('./types.js').RouterRequest} request
     */
    removeLast(request) {
      const set = setOf(request);
      set.count -= 1;
      total -= 1;
      if (request.responseTimeMs !== null) set.responseTimesMs.pop();
    },
    /** Requests tallied. */
    get count() {
      return total;
    },
    /** The label sets, each with at least one request, in the order they first came. */
    sets: () => sets.filter((set) => set.count > 0),
  };
}

/**
 * A tally of the router requests among `records`.
 * @param {Iterable<import('./types.js').PaasmonRecord>} records
 */
export function tallyRouterRequests(records) {
  const tally = createRouterRequestTally();
  for (const record of records) if (record.kind === 'router_request') tally.add(record);
  return tally;
}
