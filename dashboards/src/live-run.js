// paasmon — live run (Prometheus): instances, router and load generator, collector health.
// Every expression reads metrics that exporters/prometheus.js exposes; quantiles come from
// histogram_quantile over the rate of summed buckets, never from averaged quantiles.
// Its rows are in live-run/: instance-panels.js, router-panels.js, collector-panels.js (queries.js: shared).
import { DashboardCursorSync } from '@grafana/grafana-foundation-sdk/dashboard';
import { PROMETHEUS, UIDS, datasourceVariable, finish, paasmonDashboard } from './common.js';
import { withCollectorRow } from './live-run/collector-panels.js';
import { withInstanceRow } from './live-run/instance-panels.js';
import { labelVariable } from './live-run/queries.js';
import { withRouterRow } from './live-run/router-panels.js';

export { quantile } from './live-run/queries.js';

export function liveRunDashboard() {
  const builder = paasmonDashboard(
    'paasmon — live run',
    UIDS.live,
    'now-30m',
    'A load test as it runs: Cloud Foundry instances, gorouter and load-generator latency, and the paasmon collector itself.',
  )
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh('10s')
    .withVariable(datasourceVariable(PROMETHEUS, 'Prometheus'))
    .withVariable(labelVariable('app', 'label_values(paasmon_instance_up, app)'))
    .withVariable(labelVariable('process_type', 'label_values(paasmon_instance_up{app=~"$app"}, process_type)'))
    .withVariable(
      labelVariable(
        'instance_index',
        'label_values(paasmon_instance_up{app=~"$app",process_type=~"$process_type"}, instance_index)',
      ),
    )
    .withVariable(labelVariable('run', 'label_values(paasmon_loadgen_requests_total, run)'));

  withCollectorRow(withRouterRow(withInstanceRow(builder)));

  return finish(builder.build());
}
