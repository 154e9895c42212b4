// The report's figures as SVG strings rendered on the server by Apache ECharts (SSR mode,
// renderToSVGString): no browser, no script in the page, no request when it is opened.
import { createRequire } from 'node:module';
import { ConfigError } from '../core/errors.js';
import { groupedLines, withTips } from './chart-points.js';

/**
 * ECharts, an optional dependency (the app staged on Cloud Foundry leaves it out): loaded with this
 * module, which the html renderer alone imports, and only when that renderer is asked for.
 * @returns {typeof import('echarts')}
 */
function loadEcharts() {
  try {
    // The one-file build: it loads in a third of the time of its ESM tree of small modules.
    return createRequire(import.meta.url)('echarts');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'MODULE_NOT_FOUND') throw err;
    throw new ConfigError(
      'the HTML report needs ECharts, which is not installed (optional dependency echarts): ' +
        'choose another --format, or run npm install --include=optional',
      { variable: '--format', cause: err },
    );
  }
}

const echarts = loadEcharts();

const MIB = 1024 * 1024;
const THROUGHPUT = 'throughput req/s';
const CPU_AVG = 'CPU avg % of a core';
// Okabe-Ito: told apart with the common colour-vision deficiencies, and in grey print.
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

/**
 * @typedef {{ id: string, title: string, svg: string | null, points: number, empty: string | null }} Chart
 * @typedef {Record<string, any>} Row
 */

let rendered = 0;

/**
 * @param {string} id @param {string} title @param {any} option ECharts option
 * @param {number} points marks drawn for measured values (0: the chart is replaced by `empty`)
 * @param {string} empty what is missing when there is nothing to draw
 * @param {string[][]} [tips] text shown on hover over each point, by series and data index
 * @returns {Chart}
 */
function chart(id, title, option, points, empty, tips = []) {
  if (points === 0) return { id, title, svg: null, points, empty };
  const instance = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 760, height: 420 });
  instance.setOption({
    animation: false,
    color: PALETTE,
    textStyle: { fontFamily: 'sans-serif' },
    legend: { top: 4, type: 'plain' },
    grid: { left: 80, right: 40, top: 56, bottom: 64 },
    tooltip: { show: false },
    ...option,
  });
  // Every chart gets its own prefix for the ids and classes zrender writes (zr0-c0, zr0-cls-1),
  // which would otherwise collide between the SVGs of one page.
  const prefix = `chart${++rendered}-`;
  const svg = withTips(instance.renderToSVGString().replace(/\bzr\d+-/g, prefix), tips);
  instance.dispose();
  return { id, title, svg, points, empty: null };
}

/** @param {string} name @param {string} [type] */
const axis = (name, type = 'value') => ({
  type,
  name,
  nameLocation: 'middle',
  nameGap: type === 'category' ? 44 : 52,
  scale: type === 'value',
  nameTextStyle: { fontSize: 13 },
});

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
  const { runs } = comparison;
  const noCpu = 'no instance samples in these runs: run `paasmon collect` during a run';
  const charts = [];

  const cpu = groupedLines(runs, (r) => [r.throughput_rps, r.cpu_percent_avg], [THROUGHPUT, CPU_AVG]);
  charts.push(
    chart(
      'throughput-cpu',
      'Throughput in relation to CPU (thesis fig. 7.3)',
      {
        xAxis: axis('throughput (successful req/s)'),
        yAxis: axis('CPU avg (% of one core, sum of instances)'),
        series: cpu.series,
      },
      cpu.points,
      noCpu,
      cpu.tips,
    ),
  );

  const latency = groupedLines(runs, (r) => [r.throughput_rps, r.e2e_mean_ms], [THROUGHPUT, 'e2e mean ms']);
  charts.push(
    chart(
      'latency-throughput',
      'Response time in relation to throughput (thesis fig. 7.4)',
      {
        xAxis: axis('throughput (successful req/s)'),
        yAxis: axis('e2e mean response time (ms)'),
        series: latency.series,
      },
      latency.points,
      'no load-generator requests in these runs',
      latency.tips,
    ),
  );

  const memory = groupedLines(
    runs,
    (r) => [r.cpu_percent_avg, r.mem_bytes_avg == null ? null : r.mem_bytes_avg / MIB],
    [CPU_AVG, 'memory avg MiB'],
  );
  charts.push(
    chart(
      'memory-cpu',
      'Memory in relation to CPU (thesis fig. 7.5)',
      {
        xAxis: axis('CPU avg (% of one core, sum of instances)'),
        yAxis: axis('memory avg (MiB, sum of instances)'),
        series: memory.series,
      },
      memory.points,
      noCpu,
      memory.tips,
    ),
  );

  charts.push(...uslCharts(comparison.scaling));

  const percentiles = [
    ['p50', 'e2e_p50_ms'],
    ['p90', 'e2e_p90_ms'],
    ['p95', 'e2e_p95_ms'],
    ['p99', 'e2e_p99_ms'],
  ];
  const withLatency = runs.filter((r) => r.e2e_p50_ms != null);
  charts.push(
    chart(
      'latency-percentiles',
      'End-to-end latency percentiles per run',
      {
        xAxis: { ...axis('run', 'category'), data: withLatency.map(runName) },
        yAxis: { ...axis('latency (ms)'), scale: false, min: 0 },
        series: percentiles.map(([name, key]) => ({ name, type: 'bar', data: withLatency.map((r) => r[key]) })),
      },
      withLatency.length * percentiles.length,
      'no load-generator requests in these runs',
    ),
  );

  const parts = [
    ['outside the router (e2e - response_time)', 'outside_router_mean_ms'],
    ['in gorouter (gorouter_time)', 'gorouter_mean_ms'],
    ['behind the router (response_time - gorouter_time)', 'behind_router_mean_ms'],
  ];
  const withRouter = runs.filter((r) => r.outside_router_mean_ms != null);
  charts.push(
    chart(
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
    ),
  );

  for (const [id, title, key, yName, scale] of /** @type {const} */ ([
    ['instance-cpu', 'CPU per instance over each run', 'cpu_percent', 'CPU (% of one core)', 1],
    ['instance-memory', 'Memory per instance over each run', 'mem_bytes', 'memory (MiB)', 1 / MIB],
  ])) {
    /** @type {Map<string, Array<[number, number]>>} */
    const lines = new Map();
    for (const s of comparison.instanceSeries) {
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
        noCpu,
      ),
    );
  }
  return charts;
}
