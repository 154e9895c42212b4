// Runs built in PostgreSQL as `paasmon loadgen` and the router's records would leave them, with
// each request's time split into layers: outside the router, in it (gorouter_time) and behind it
// (response_time − gorouter_time), so a delay can be put into one layer at a time.
import { seedRun } from './report-runs.js';

/**
 * @typedef {object} LayeredRun
 * @property {string} [label]
 * @property {number} [parallel] (8)
 * @property {Date} start
 * @property {number} [requests] (3000, over 30 s)
 * @property {number} seed varies the noise of each request
 * @property {number} [outside] ms (2)
 * @property {number} [router] ms (0.5)
 * @property {number} [behind] ms (8)
 * @property {number} [level] the round's own factor on every layer (1)
 * @property {boolean} [samples] instance samples of the app (true)
 * @property {string} [tool] the rows' tool, as `paasmon import` writes it (NULL: paasmon's load generator)
 */

/**
 * @param {(sql: string, params?: unknown[]) => Promise<any>} query @param {LayeredRun} spec
 * @returns {Promise<number>} the run id
 */
export async function seedLayeredRun(query, spec) {
  const level = spec.level ?? 1;
  // Per request i: a layer's time with ±15 % noise and a slow wave shared by neighbouring requests.
  const noisy = (/** @type {number} */ base, /** @type {number} */ salt) =>
    `(${base * level} * (1 + 0.3 * ((abs(hashtext(i::text || '-${spec.seed}-${salt}')) % 1000) / 1000.0 - 0.5)` +
    ` + 0.05 * sin(i / 40.0 + ${spec.seed})))`;
  const outside = noisy(spec.outside ?? 2, 1);
  const router = noisy(spec.router ?? 0.5, 2);
  const behind = noisy(spec.behind ?? 8, 3);
  const runId = await seedRun(query, {
    label: spec.label ?? 'shop',
    app: 'shop',
    implementation: 'node',
    instances: 2,
    coresPerInstance: 1,
    parallel: spec.parallel ?? 8,
    start: spec.start,
    spanS: 30,
    successful: spec.requests ?? 3000,
    durationSql: `${outside} + ${router} + ${behind}`,
    router: false,
    cpuPolls: spec.samples === false ? [] : [120 * level, 130 * level, 125 * level],
    pollS: 2,
  });
  // The router's record of request i: response_time = e2e − outside, gorouter_time = router.
  await query(
    `INSERT INTO router_requests (received_at, app_guid, app_name, app_index, method, path, status, response_time_ms,
                                  gorouter_time_ms, vcap_request_id, correlation_id)
    SELECT l.started_at + interval '0.2 millisecond', 'guid-shop', 'shop', 0, 'GET', '/api', l.status,
           greatest(l.duration_ms - o.outside, 0), least(o.router, greatest(l.duration_ms - o.outside, 0)),
           l.correlation_id, l.correlation_id
    FROM loadgen_requests l
    CROSS JOIN LATERAL (SELECT split_part(l.correlation_id, '-', 2)::int AS i) n
    CROSS JOIN LATERAL (SELECT ${outside.replaceAll('i::text', 'n.i::text').replaceAll('i / 40', 'n.i / 40')} AS outside,
                               ${router.replaceAll('i::text', 'n.i::text').replaceAll('i / 40', 'n.i / 40')} AS router) o
    WHERE l.run_id = $1`,
    [runId],
  );
  if (spec.tool) await query('UPDATE loadgen_requests SET tool = $2 WHERE run_id = $1', [runId, spec.tool]);
  return runId;
}
