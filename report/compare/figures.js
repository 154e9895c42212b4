// The figures `paasmon compare` puts side by side: their unit, layer, which direction is worse,
// whether their change is relative (a ratio) or absolute (percentage points), and the noise
// threshold that applies to them.

/**
 * @typedef {'outside_router' | 'router' | 'behind_router'} Layer
 * @typedef {'latency' | 'throughput' | 'errors' | 'cpu' | 'memory'} ThresholdKind
 * @typedef {object} FigureSpec
 * @property {string} name stable name (the JSON contract, --gate)
 * @property {string} label short text for tables
 * @property {string} unit
 * @property {Layer | 'e2e' | null} layer
 * @property {1 | -1} worse 1: higher is worse (latency), -1: lower is worse (throughput)
 * @property {'relative' | 'absolute'} change relative: candidate / baseline − 1; absolute: the difference
 * @property {ThresholdKind} threshold
 */

/** @type {FigureSpec[]} */
export const FIGURES = [
  {
    name: 'throughput_rps',
    label: 'throughput',
    unit: 'req/s',
    layer: null,
    worse: -1,
    change: 'relative',
    threshold: 'throughput',
  },
  { name: 'error_ratio', label: 'errors', unit: '%', layer: null, worse: 1, change: 'absolute', threshold: 'errors' },
  {
    name: 'e2e_mean_ms',
    label: 'e2e mean',
    unit: 'ms',
    layer: 'e2e',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'e2e_p50_ms',
    label: 'e2e p50',
    unit: 'ms',
    layer: 'e2e',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'e2e_p95_ms',
    label: 'e2e p95',
    unit: 'ms',
    layer: 'e2e',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'e2e_p99_ms',
    label: 'e2e p99',
    unit: 'ms',
    layer: 'e2e',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'outside_router_mean_ms',
    label: 'outside router mean',
    unit: 'ms',
    layer: 'outside_router',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'router_mean_ms',
    label: 'in router mean',
    unit: 'ms',
    layer: 'router',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'behind_router_mean_ms',
    label: 'behind router mean',
    unit: 'ms',
    layer: 'behind_router',
    worse: 1,
    change: 'relative',
    threshold: 'latency',
  },
  {
    name: 'cpu_ms_per_request',
    label: 'CPU per request',
    unit: 'CPU ms',
    layer: null,
    worse: 1,
    change: 'relative',
    threshold: 'cpu',
  },
  { name: 'memory_mib', label: 'memory', unit: 'MiB', layer: null, worse: 1, change: 'relative', threshold: 'memory' },
];

/** The gate when --gate is not given. */
export const DEFAULT_GATE = ['e2e_p95_ms', 'error_ratio', 'throughput_rps', 'cpu_ms_per_request'];

/** Noise thresholds: fractions of the baseline, except errors (a difference of ratios: 0.005 = 0.5 points). */
export const DEFAULT_THRESHOLDS = /** @type {Record<ThresholdKind, number>} */ ({
  latency: 0.05,
  throughput: 0.05,
  errors: 0.005,
  cpu: 0.05,
  memory: 0.1,
});

/** @param {string} name @returns {FigureSpec | undefined} */
export const figureSpec = (name) => FIGURES.find((f) => f.name === name);

/** The spec of an endpoint's mean (router path). @param {string} path @returns {FigureSpec} */
export const endpointSpec = (path) => ({
  name: `endpoint_mean_ms:${path}`,
  label: `${path} mean`,
  unit: 'ms',
  layer: 'e2e',
  worse: 1,
  change: 'relative',
  threshold: 'latency',
});
