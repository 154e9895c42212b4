// The live-run dashboard's Instances row: usage against quota, then state, uptime and restarts.
import { MappingType, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import { PROMETHEUS, datasourceRef } from '../common.js';
import { INSTANCE, INSTANCE_LEGEND, prom, series, single } from './queries.js';

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DashboardBuilder} DashboardBuilder */

/**
 * The row, its usage panels (CPU, memory, disk) and its lifecycle panels.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
export function withInstanceRow(builder) {
  return withLifecyclePanels(withUsagePanels(builder.withRow(new RowBuilder('Instances'))));
}

/**
 * CPU of a core and of the entitlement, memory and disk against quota.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
function withUsagePanels(builder) {
  return builder
    .withPanel(
      series(
        'CPU per instance, % of one core',
        'Cloud Controller process stats: the CPU fraction x 100 (250 = two and a half cores).',
        'percent',
      )
        .withTarget(prom(`paasmon_instance_cpu_percent{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      series(
        'CPU per instance, % of entitlement',
        'Percent of the CPU entitlement of the instance; above 100 it runs on spare capacity that can be taken away.',
        'percent',
      )
        .withTarget(prom(`paasmon_instance_cpu_entitlement_percent{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      series('Memory per instance, % of quota', 'Memory used by each instance against its own quota.', 'percent')
        .withTarget(
          prom(
            `100 * paasmon_instance_memory_bytes{${INSTANCE}} / paasmon_instance_memory_quota_bytes{${INSTANCE}}`,
            INSTANCE_LEGEND,
          ),
        )
        .min(0)
        .max(100),
    )
    .withPanel(
      series(
        'Memory per app: used and quota of all instances',
        'Sums over the running instances, so the quota is the per-instance quota times the instance count.',
        'bytes',
      )
        .withTarget(prom(`sum by (app) (paasmon_instance_memory_bytes{${INSTANCE}})`, '{{app}} used'))
        .withTarget(prom(`sum by (app) (paasmon_instance_memory_quota_bytes{${INSTANCE}})`, '{{app}} quota', 'B'))
        .min(0),
    )
    .withPanel(
      series('Disk per instance, % of quota', 'Disk used by each instance against its own quota.', 'percent')
        .withTarget(
          prom(
            `100 * paasmon_instance_disk_bytes{${INSTANCE}} / paasmon_instance_disk_quota_bytes{${INSTANCE}}`,
            INSTANCE_LEGEND,
          ),
        )
        .min(0)
        .max(100),
    );
}

/**
 * Uptime, state and restarts per instance.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
function withLifecyclePanels(builder) {
  return builder
    .withPanel(
      series('Uptime per instance', 'Seconds since each instance started; a drop to zero is a restart.', 's')
        .withTarget(prom(`paasmon_instance_uptime_seconds{${INSTANCE}}`, INSTANCE_LEGEND))
        .min(0),
    )
    .withPanel(
      new statetimeline.PanelBuilder()
        .title('Instance state')
        .description('RUNNING, or not (STARTING, CRASHED, DOWN), per instance and poll.')
        .datasource(datasourceRef(PROMETHEUS))
        .unit('none')
        .height(8)
        .span(12)
        .mappings([
          {
            type: MappingType.ValueToText,
            options: {
              0: { text: 'not running', color: 'red', index: 0 },
              1: { text: 'RUNNING', color: 'green', index: 1 },
            },
          },
        ])
        .withTarget(prom(`paasmon_instance_up{${INSTANCE}}`, INSTANCE_LEGEND)),
    )
    .withPanel(
      single('Restarts in range', 'Uptime resets per instance in the dashboard time range.', 'none')
        .span(12)
        .height(8)
        .withTarget(
          prom(
            `sum by (app, process_type, instance_index) (resets(paasmon_instance_uptime_seconds{${INSTANCE}}[$__range]))`,
            INSTANCE_LEGEND,
          ),
        ),
    );
}
