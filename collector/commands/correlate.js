import { correlationCounts } from '../../exporters/postgres/queries/correlation.js';
import { formatTable } from './format.js';
import { withMigratedDatabase } from '../../exporters/postgres/database.js';
import { numberFlag } from './flags.js';
import { recordIdsHint } from '../sources/load-results/formats.js';

/**
 * @param {import('../config/index.js').Config} config
 * @param {{ log: import('pino').Logger, out: (line: string) => void, err: (line: string) => void }} ctx
 * @param {{ run?: string }} flags
 */
export function correlateCommand(config, { log, out, err }, flags) {
  const runId = numberFlag(flags.run, '--run', { integer: true, min: 1 });
  return withMigratedDatabase(config, log, async (pool) => {
    const counts = await correlationCounts(pool, runId);
    if (runId !== undefined && counts.length === 0) {
      err(`paasmon: run ${runId} does not exist (paasmon run list shows the runs)`);
      return 1;
    }
    out(
      formatTable(
        ['run', 'label', 'loadgen requests', 'matched', 'loadgen only', 'router only', 'matched %'],
        counts.map((c) => [
          String(c.run_id),
          c.label,
          String(c.requests),
          String(c.matched),
          String(c.loadgen_only),
          String(c.router_only),
          c.requests ? ((100 * c.matched) / c.requests).toFixed(2) : '-',
        ]),
        new Set([0, 2, 3, 4, 5, 6]),
      ),
    );
    for (const c of counts) {
      if (c.without_ids > 0) out(`run ${c.run_id}: ${withoutIds(c, config)}`);
      else if (c.requests > 0 && c.matched === 0) out(`run ${c.run_id}: nothing matched: ${whyUnmatched(c, config)}`);
    }
    return 0;
  });
}

/**
 * A run whose tool recorded no ids: compared over its time window only; how to record them.
 * @param {import('../../exporters/postgres/queries/correlation.js').CorrelationCount} c
 * @param {{ correlationHeader: string }} config
 */
function withoutIds(c, config) {
  const tool = c.tool ?? 'the tool';
  const how = recordIdsHint(c.tool) ?? 'make it send one id per request';
  return (
    `${tool} recorded no correlation ids for ${c.without_ids} of ${c.requests} requests: those are compared over ` +
    `the run's time window only (throughput, latency, CPU, router percentiles). To join each request with its ` +
    `router record, send a fresh id per request in ${config.correlationHeader} or a W3C traceparent: ${how}`
  );
}

/**
 * Why a run with load-generator requests matched none, from what its window holds.
 * @param {import('../../exporters/postgres/queries/correlation.js').CorrelationCount} c
 * @param {{ correlationHeader: string }} config
 */
function whyUnmatched(c, config) {
  if (c.router_only === 0) {
    return (
      "no router records of the run's app in its time window: ingest them (paasmon ingest, or ingest --file) " +
      "and check that the run's app (run start --app, loadgen --app) is the app name in the router records"
    );
  }
  return (
    `${c.router_only} router records in the run's window carry no id the load generator sent: the router must log ` +
    `${config.correlationHeader} (router.extra_headers_to_log) or trace with the ids it was sent`
  );
}
