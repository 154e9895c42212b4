// The report's figures: the runs against each other, the scalability fits, latency per run and each
// instance over its run, each an SVG chart (svg-chart.js).
import { groupedLines } from './chart-points.js';
import { PALETTE, axis, chart } from './svg-chart.js';

const MIB = 1024 * 1024;
const THROUGHPUT = 'throughput req/s';
const CPU_AVG = 'CPU avg % of a core';

/**
 * @typedef {import('./svg-chart.js').Chart} Chart
 * @typedef {Record<string, any>} Row
 */

/** The fitted curve from N = 1 to `maxN`. @param {import('./usl.js').UslFit} fit @param {number} maxN */
function uslCurve({ lambda, sigma, kappa }, maxN) {
  return Array.from({ length: 121 }, (_, i) => {
    const n = 1 + ((maxN - 1) * i) / 120;
    return [n, (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1))];
  });
}

/**
 * One chart per fit (measured points and curve), and, where several groups were fitted on the
 * same load, one with every group's points and curve in the group's colour.
 * @param {import('./comparison.js').Scaling[]} scaling @returns {Chart[]}
 */
function uslCharts(scaling) {
  // A group without a fit has its reason in the report's scalability section, and no figure.
  const fitted = scaling.filter((s) => s.fit);
  const maxN = (/** @type {typeof fitted} */ group) =>
    Math.max(...group.flatMap((s) => [...s.points.map((p) => p.n), s.fit?.peakN ?? 0])) * 1.15;
  const loadName = (/** @type {string | null} */ by) =>
    by === 'instances' ? 'load (app instances)' : 'load (parallel requests)';
  /** @param {typeof fitted} group @param {boolean} named series named after their group */
  const series = (group, named) =>
    group.flatMap((s, i) => {
      const fit = /** @type {import('./usl.js').UslFit} */ (s.fit);
      const color = named ? { itemStyle: { color: PALETTE[i % PALETTE.length] } } : {};
      const params = `σ=${fit.sigma.toPrecision(3)}, κ=${fit.kappa.toPrecision(3)}`;
      return [
        {
          name: named ? s.key : 'measured',
          type: 'scatter',
          symbolSize: 10,
          ...color,
          data: s.points.map((p) => [p.n, p.throughput]),
        },
        {
          name: named ? `${s.key} USL fit (${params})` : `USL fit (${params})`,
          type: 'line',
          showSymbol: false,
          ...color,
          data: uslCurve(fit, maxN(group)),
        },
      ];
    });
  /** @param {string} id @param {string} title @param {typeof fitted} group @param {boolean} named */
  const draw = (id, title, group, named) =>
    chart(
      id,
      title,
      {
        ...(named ? { legend: { top: 4, type: 'scroll' } } : {}),
        xAxis: { ...axis(loadName(group[0].by)), scale: false, min: 0 },
        yAxis: { ...axis('throughput (successful req/s)'), scale: false, min: 0 },
        series: series(group, named),
      },
      group.reduce((n, s) => n + s.points.length, 0),
      '',
    );
  const charts = [];
  for (const by of ['parallel', 'instances']) {
    const group = fitted.filter((s) => s.by === by);
    if (group.length > 1) {
      charts.push(draw(`usl-by-${by}`, 'Scalability side by side: USL fit per implementation', group, true));
    }
  }
  for (const s of fitted) {
    const title = `Scalability of ${s.key}: Universal Scalability Law through the measured points`;
    charts.push(draw(`usl-${s.key.replace(/[^A-Za-z0-9]+/g, '-')}`, title, [s], false));
  }
  return charts;
}

/** @param {Row} run */
const runName = (run) => `${run.run_id} ${run.label}`;

/** @param {import('./comparison.js').Comparison} comparison @returns {Chart[]} */
export function reportCharts(comparison) {
  return [
    ...relationCharts(comparison.runs),
    ...uslCharts(comparison.scaling),
    latencyPercentilesChart(comparison.runs),
    latencyBreakdownChart(comparison.runs),
    ...instanceCharts(comparison.instanceSeries),
  ];
}

const NO_CPU = 'no instance samples in these runs: run `paasmon collect` during a run';
const NO_LOADGEN = 'no load-generator requests in these runs';
const THROUGHPUT_AXIS = 'throughput (successful req/s)';
const CPU_AXIS = 'CPU avg (% of one core, sum of instances)';

/**
 * Two figures of each run against each other (thesis figs. 7.3 to 7.5), a line per implementation.
 * @param {Row[]} runs @returns {Chart[]}
 */
function relationCharts(runs) {
  /** @type {Array<{ id: string, title: string, xy: (r: Row) => [any, any], names: [string, string],
   *   axes: [string, string], empty: string }>} */
  const relations = [
    {
      id: 'throughput-cpu',
      title: 'Throughput in relation to CPU (thesis fig. 7.3)',
      xy: (r) => [r.throughput_rps, r.cpu_percent_avg],
      names: [THROUGHPUT, CPU_AVG],
      axes: [THROUGHPUT_AXIS, CPU_AXIS],
      empty: NO_CPU,
    },
    {
      id: 'latency-throughput',
      title: 'Response time in relation to throughput (thesis fig. 7.4)',
      xy: (r) => [r.throughput_rps, r.e2e_mean_ms],
      names: [THROUGHPUT, 'e2e mean ms'],
      axes: [THROUGHPUT_AXIS, 'e2e mean response time (ms)'],
      empty: NO_LOADGEN,
    },
    {
      id: 'memory-cpu',
      title: 'Memory in relation to CPU (thesis fig. 7.5)',
      xy: (r) => [r.cpu_percent_avg, r.mem_bytes_avg == null ? null : r.mem_bytes_avg / MIB],
      names: [CPU_AVG, 'memory avg MiB'],
      axes: [CPU_AXIS, 'memory avg (MiB, sum of instances)'],
      empty: NO_CPU,
    },
  ];
  return relations.map(({ id, title, xy, names, axes, empty }) => {
    const lines = groupedLines(runs, xy, names);
    const option = { xAxis: axis(axes[0]), yAxis: axis(axes[1]), series: lines.series };
    return chart(id, title, option, lines.points, empty, lines.tips);
  });
}

/** End-to-end percentiles, a group of bars per run. @param {Row[]} runs */
function latencyPercentilesChart(runs) {
  const percentiles = [
    ['p50', 'e2e_p50_ms'],
    ['p90', 'e2e_p90_ms'],
    ['p95', 'e2e_p95_ms'],
    ['p99', 'e2e_p99_ms'],
  ];
  const withLatency = runs.filter((r) => r.e2e_p50_ms != null);
  return chart(
    'latency-percentiles',
    'End-to-end latency percentiles per run',
    {
      xAxis: { ...axis('run', 'category'), data: withLatency.map(runName) },
      yAxis: { ...axis('latency (ms)'), scale: false, min: 0 },
      series: percentiles.map(([name, key]) => ({ name, type: 'bar', data: withLatency.map((r) => r[key]) })),
    },
    withLatency.length * percentiles.length,
    NO_LOADGEN,
  );
}

/** Where the mean time of a run's routed requests went, a stacked bar per run. @param {Row[]} runs */
function latencyBreakdownChart(runs) {
  const parts = [
    ['outside the router (e2e - response_time)', 'outside_router_mean_ms'],
    ['in gorouter (gorouter_time)', 'gorouter_mean_ms'],
    ['behind the router (response_time - gorouter_time)', 'behind_router_mean_ms'],
  ];
  const withRouter = runs.filter((r) => r.outside_router_mean_ms != null);
  return chart(
    'latency-breakdown',
    'Latency breakdown per run (mean of the requests the router logged)',
    {
      xAxis: { ...axis('run', 'category'), data: withRouter.map(runName) },
      yAxis: { ...axis('mean time (ms)'), scale: false, min: 0 },
      series: parts.map(([name, key]) => ({
        name,
        type: 'bar',
        stack: 'breakdown',
        data: withRouter.map((r) => r[key]),
      })),
    },
    withRouter.length * parts.length,
    'no router records matched these runs: run `paasmon ingest`, then `paasmon correlate`',
  );
}

/** CPU and memory of each instance over the seconds of its run, a line each. @param {Row[]} instanceSeries */
function instanceCharts(instanceSeries) {
  const charts = [];
  for (const [id, title, key, yName, scale] of /** @type {const} */ ([
    ['instance-cpu', 'CPU per instance over each run', 'cpu_percent', 'CPU (% of one core)', 1],
    ['instance-memory', 'Memory per instance over each run', 'mem_bytes', 'memory (MiB)', 1 / MIB],
  ])) {
    /** @type {Map<string, Array<[number, number]>>} */
    const lines = new Map();
    for (const s of instanceSeries) {
      if (s[key] == null) continue;
      const name = `run ${s.run_id} #${s.instance_index}${s.process_type === 'web' ? '' : ` ${s.process_type}`}`;
      lines.set(name, [...(lines.get(name) ?? []), [s.t_s, s[key] * scale]]);
    }
    const series = [...lines].map(([name, data]) => ({
      name,
      type: 'line',
      data,
      showSymbol: true,
      showAllSymbol: true,
      symbolSize: 5,
    }));
    charts.push(
      chart(
        id,
        title,
        {
          legend: { top: 4, type: 'scroll' },
          xAxis: { ...axis('seconds since run start (s)'), scale: false, min: 0 },
          yAxis: axis(yName),
          series,
        },
        series.reduce((n, s) => n + s.data.length, 0),
        NO_CPU,
      ),
    );
  }
  return charts;
}
