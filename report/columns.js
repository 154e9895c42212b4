// The columns of a run in every format: `key` is the stable name in csv/json (the SQL column,
// unit in the name); `header` is the human heading with its unit; `scale` turns the stored value
// into the unit of the heading (ratios to %, bytes to MiB).

const MIB = 1024 * 1024;

/**
 * @typedef {object} Column
 * @property {string} key
 * @property {string} header
 * @property {number} [digits] decimals shown; absent for text
 * @property {number} [scale]
 */

/** @type {Column[]} */
export const RUN_COLUMNS = [
  { key: 'run_id', header: 'run', digits: 0 },
  { key: 'label', header: 'label' },
  { key: 'app_name', header: 'app' },
  { key: 'implementation', header: 'implementation' },
  { key: 'instances', header: 'instances', digits: 0 },
  { key: 'parallel', header: 'parallel requests', digits: 0 },
  { key: 'cores_per_instance', header: 'cores per instance', digits: 2 },
  { key: 'round', header: 'round', digits: 0 },
  { key: 'meta', header: 'parameters (meta)' },
  { key: 'window_s', header: 'steady window s', digits: 1 },
  { key: 'requests', header: 'requests in window', digits: 0 },
  { key: 'successful', header: 'successful requests', digits: 0 },
  { key: 'errors', header: 'errors (no response or 5xx)', digits: 0 },
  { key: 'timeouts', header: 'timeouts', digits: 0 },
  { key: 'error_ratio', header: 'errors %', digits: 2, scale: 100 },
  { key: 'throughput_rps', header: 'throughput req/s', digits: 1 },
  { key: 'throughput_rpm', header: 'throughput req/min', digits: 0 },
  { key: 'e2e_mean_ms', header: 'e2e mean ms', digits: 2 },
  { key: 'e2e_p50_ms', header: 'e2e p50 ms', digits: 2 },
  { key: 'e2e_p90_ms', header: 'e2e p90 ms', digits: 2 },
  { key: 'e2e_p95_ms', header: 'e2e p95 ms', digits: 2 },
  { key: 'e2e_p99_ms', header: 'e2e p99 ms', digits: 2 },
  { key: 'e2e_max_ms', header: 'e2e max ms', digits: 2 },
  { key: 'e2e_stddev_ms', header: 'e2e stddev ms', digits: 2 },
  { key: 'matched_ratio', header: 'router records matched %', digits: 1, scale: 100 },
  { key: 'router_mean_ms', header: 'router mean ms', digits: 2 },
  { key: 'router_p50_ms', header: 'router p50 ms', digits: 2 },
  { key: 'router_p95_ms', header: 'router p95 ms', digits: 2 },
  { key: 'router_p99_ms', header: 'router p99 ms', digits: 2 },
  { key: 'outside_router_mean_ms', header: 'outside router mean ms (e2e - response_time)', digits: 2 },
  { key: 'gorouter_mean_ms', header: 'in gorouter mean ms (gorouter_time)', digits: 3 },
  { key: 'behind_router_mean_ms', header: 'behind router mean ms (response_time - gorouter_time)', digits: 2 },
  { key: 'cpu_polls', header: 'CPU samples (moments) in window', digits: 0 },
  { key: 'cpu_percent_avg', header: 'CPU avg % of 1 core (sum of instances)', digits: 1 },
  { key: 'cpu_percent_peak', header: 'CPU peak % of 1 core (sum of instances)', digits: 1 },
  { key: 'cpu_capacity_percent', header: 'CPU capacity % of 1 core (instances x cores x 100)', digits: 0 },
  { key: 'cpu_utilization_percent', header: 'CPU utilised % of capacity (peak, table 7.1)', digits: 1 },
  { key: 'rpm_per_cpu_percent', header: 'req/min per CPU % (avg, table 7.2)', digits: 1 },
  { key: 'mem_bytes_avg', header: 'memory avg MiB (sum of instances)', digits: 1, scale: 1 / MIB },
  { key: 'mem_bytes_peak', header: 'memory peak MiB (sum of instances)', digits: 1, scale: 1 / MIB },
];

/** @param {unknown} value @param {Column} column */
export function formatValue(value, column) {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return '';
  if (column.key === 'meta' && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  if (column.digits === undefined || typeof value !== 'number') return String(value);
  return (value * (column.scale ?? 1)).toFixed(column.digits);
}
