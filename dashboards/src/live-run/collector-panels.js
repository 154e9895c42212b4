// The live-run dashboard's Collector health row: source freshness, ingest lag, database buffer, errors.
import { RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { RATE, prom, quantile, series, single } from './queries.js';

/** @typedef {import('@grafana/grafana-foundation-sdk/dashboard').DashboardBuilder} DashboardBuilder */

/**
 * The row and its panels.
 * @param {DashboardBuilder} builder @returns {DashboardBuilder}
 */
export function withCollectorRow(builder) {
  return builder
    .withRow(new RowBuilder('Collector health'))
    .withPanel(
      single(
        'Last successful poll, age',
        'Seconds since each source last succeeded; alerts fire past three poll intervals.',
        's',
      ).withTarget(prom('time() - paasmon_source_last_success_timestamp_seconds', '{{source}}')),
    )
    .withPanel(
      single('Router ingest lag', 'How far the router-log checkpoint is behind now.', 's').withTarget(
        prom('paasmon_router_ingest_lag_seconds', 'lag'),
      ),
    )
    .withPanel(
      single(
        'Records waiting for PostgreSQL',
        'Buffered while the database is unreachable (bounded by DB_BUFFER_RECORDS).',
        'none',
      ).withTarget(prom('paasmon_db_pending_records', 'pending')),
    )
    .withPanel(
      single(
        'Records dropped in range',
        'Dropped because the buffer was full during a database outage: lost data.',
        'none',
      ).withTarget(prom('increase(paasmon_db_dropped_records_total[$__range])', 'dropped')),
    )
    .withPanel(
      series('Poll duration p95', 'Duration of one poll of each source.', 's')
        .withTarget(prom(quantile('paasmon_source_poll_duration_seconds', 0.95, '', 'source'), '{{source}}'))
        .min(0),
    )
    .withPanel(
      series(
        'Source errors and skipped polls per second',
        'Failed polls and requests by reason; polls skipped because the previous one still ran.',
        'ops',
      )
        .noValue('0')
        .withTarget(
          prom(`sum by (source, reason) (rate(paasmon_source_errors_total[${RATE}]))`, '{{source}} error {{reason}}'),
        )
        .withTarget(
          prom(`sum by (source) (rate(paasmon_source_polls_skipped_total[${RATE}]))`, '{{source}} skipped', 'B'),
        )
        .min(0),
    );
}
