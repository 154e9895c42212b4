// The columns of a run in every format: `key` is the stable name in csv/json (the SQL column,
// unit in the name); `header` is the human heading with its unit; `scale` turns the stored value
// into the unit of the heading (ratios to %, bytes to MiB). Headings stay short so a terminal table
// fits; `definition` says what a figure is, in the legend under the table.

const MIB = 1024 * 1024;

/**
 * @typedef {object} Column
 * @property {string} key
 * @property {string} header
 * @property {number} [digits] decimals shown; absent for text
 * @property {number} [scale]
 * @property {string} [definition] what the figure is, for the legend under a table
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
  { key: 'meta', header: 'parameters', definition: 'the values given to run start --meta' },
  {
    key: 'window_s',
    header: 'steady window s',
    digits: 1,
    definition: 'first send to last response, less the trim at each end; every figure is over this window',
  },
  { key: 'requests', header: 'requests', digits: 0, definition: 'load-generator requests sent in the window' },
  { key: 'successful', header: 'successful', digits: 0, definition: 'requests answered with a status below 500' },
  { key: 'errors', header: 'errors', digits: 0, definition: 'requests with no response or a 5xx' },
  { key: 'timeouts', header: 'timeouts', digits: 0 },
  { key: 'error_ratio', header: 'errors %', digits: 2, scale: 100 },
  { key: 'throughput_rps', header: 'throughput req/s', digits: 1, definition: 'successful requests per second' },
  { key: 'throughput_rpm', header: 'throughput req/min', digits: 0 },
  {
    key: 'e2e_mean_ms',
    header: 'e2e mean ms',
    digits: 2,
    definition: "end to end, the load generator's time of each request (errors included)",
  },
  { key: 'e2e_p50_ms', header: 'e2e p50 ms', digits: 2 },
  { key: 'e2e_p90_ms', header: 'e2e p90 ms', digits: 2 },
  { key: 'e2e_p95_ms', header: 'e2e p95 ms', digits: 2 },
  { key: 'e2e_p99_ms', header: 'e2e p99 ms', digits: 2 },
  { key: 'e2e_max_ms', header: 'e2e max ms', digits: 2 },
  { key: 'e2e_stddev_ms', header: 'e2e stddev ms', digits: 2 },
  {
    key: 'matched_ratio',
    header: 'router matched %',
    digits: 1,
    scale: 100,
    definition: 'requests whose router record was found by correlation id',
  },
  {
    key: 'router_mean_ms',
    header: 'router mean ms',
    digits: 2,
    definition: "gorouter's response_time of the same requests",
  },
  { key: 'router_p50_ms', header: 'router p50 ms', digits: 2 },
  { key: 'router_p95_ms', header: 'router p95 ms', digits: 2 },
  { key: 'router_p99_ms', header: 'router p99 ms', digits: 2 },
  {
    key: 'outside_router_mean_ms',
    header: 'outside router mean ms',
    digits: 2,
    definition: 'e2e - response_time: client and network',
  },
  { key: 'gorouter_mean_ms', header: 'in gorouter mean ms', digits: 3, definition: 'gorouter_time' },
  {
    key: 'behind_router_mean_ms',
    header: 'behind router mean ms',
    digits: 2,
    definition: 'response_time - gorouter_time: the app',
  },
  {
    key: 'cpu_polls',
    header: 'CPU readings',
    digits: 0,
    definition: "sampling moments in the window: the platform's new readings (a poll repeating one is none)",
  },
  {
    key: 'cpu_readings_per_instance',
    header: 'CPU readings / instance',
    digits: 0,
    definition: 'the fewest new readings of one instance in the window: what each CPU figure rests on',
  },
  {
    key: 'cpu_percent_avg',
    header: 'CPU avg % of a core',
    digits: 1,
    definition: 'per sampling moment the sum over instances of % of one core; mean over the moments',
  },
  { key: 'cpu_percent_peak', header: 'CPU peak % of a core', digits: 1, definition: 'the same, maximum' },
  {
    key: 'cpu_capacity_percent',
    header: 'CPU capacity %',
    digits: 0,
    definition: 'instances x cores per instance x 100 (% of one core)',
  },
  {
    key: 'cpu_utilization_percent',
    header: 'CPU utilised %',
    digits: 1,
    definition: 'CPU peak / CPU capacity (thesis table 7.1)',
  },
  {
    key: 'rpm_per_cpu_percent',
    header: 'req/min per CPU %',
    digits: 1,
    definition: 'throughput req/min / CPU avg (thesis table 7.2)',
  },
  {
    key: 'mem_bytes_avg',
    header: 'memory avg MiB',
    digits: 1,
    scale: 1 / MIB,
    definition: 'per sampling moment the sum over instances; mean over the moments',
  },
  { key: 'mem_bytes_peak', header: 'memory peak MiB', digits: 1, scale: 1 / MIB, definition: 'the same, maximum' },
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
