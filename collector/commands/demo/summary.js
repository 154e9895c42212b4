// The demo's comparison: the runs as `paasmon report` compares them (text, HTML, JSON files), a
// compact table per implementation (the thesis's tables 7.1 and 7.2), and the closing sentences.
import fs from 'node:fs';
import path from 'node:path';
import { renderComparison } from '../../../report/render/index.js';
import { compareRuns } from '../../use-cases/compare-runs.js';

/** @typedef {import('../../../report/comparison.js').Comparison} Comparison */

const COLUMNS = /** @type {const} */ ([
  ['run', 'run_id', 0],
  ['instances', 'instances', 0],
  ['in flight', 'parallel', 0],
  ['offered req/s', 'rate', 0],
  ['req/s', 'throughput_rps', 1],
  ['e2e mean ms', 'e2e_mean_ms', 2],
  ['e2e p95 ms', 'e2e_p95_ms', 2],
  ['CPU avg %', 'cpu_percent_avg', 1],
  ['CPU util % (7.1)', 'cpu_utilization_percent', 1],
  ['req/min per CPU % (7.2)', 'rpm_per_cpu_percent', 1],
  ['memory MiB', 'mem_bytes_avg', 1],
  ['outside router ms', 'outside_router_mean_ms', 2],
  ['behind router ms', 'behind_router_mean_ms', 2],
]);

/** @param {unknown} value @param {number} digits */
const cell = (value, digits) => (typeof value === 'number' && Number.isFinite(value) ? value.toFixed(digits) : '');

/**
 * The runs compared, written as comparison.txt, report.html and report.json in `outDir`.
 * @param {import('pg').Pool} pool @param {number[]} runIds @param {'parallel' | 'instances'} scaleBy
 * @param {string} outDir
 */
export async function writeComparison(pool, runIds, scaleBy, outDir) {
  const comparison = await compareRuns(pool, runIds, { scaleBy });
  fs.mkdirSync(outDir, { recursive: true });
  /** @type {Record<string, string>} */
  const files = {};
  for (const [format, name] of [
    ['table', 'comparison.txt'],
    ['html', 'report.html'],
    ['json', 'report.json'],
  ]) {
    files[format] = path.join(outDir, name);
    fs.writeFileSync(files[format], await renderComparison(comparison, /** @type {any} */ (format)));
  }
  return { comparison, files };
}

/** @param {Record<string, any>} run @param {string} key */
function figure(run, key) {
  if (key === 'rate') return run.meta?.rate === undefined ? null : Number(run.meta.rate);
  return key === 'mem_bytes_avg' ? run[key] / 1024 / 1024 : run[key];
}

/** One table per implementation, a row per run. @param {Comparison} comparison */
export function implementationTables(comparison) {
  const impls = [...new Set(comparison.runs.map((r) => r.implementation ?? r.label))];
  return impls.map((impl) => {
    const rows = comparison.runs
      .filter((r) => (r.implementation ?? r.label) === impl)
      .map((r) => COLUMNS.map(([, key, digits]) => cell(figure(r, key), digits)));
    const header = COLUMNS.map(([name]) => name);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
    const lines = [header, ...rows].map((row) => row.map((c, i) => c.padStart(widths[i])).join('  '));
    return `${impl}:\n${lines.join('\n')}`;
  });
}

/** Mean of `key` over `runs`, or null. @param {Record<string, any>[]} runs @param {string} key */
function mean(runs, key) {
  const values = runs.map((r) => r[key]).filter((v) => typeof v === 'number' && Number.isFinite(v));
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** X(∞) = λ/σ without coherency (κ = 0). @param {import('../../../report/usl.js').UslFit} fit */
const ceiling = (fit) => (fit.sigma > 0 ? (fit.lambda / fit.sigma).toFixed(1) : '∞');

/** @param {Comparison} comparison @returns {string[]} */
export function scalingLines(comparison) {
  return comparison.scaling.map((s) => {
    if (!s.fit) return `${s.key}: ${s.message}`;
    const { sigma, kappa, peakN, peakThroughput } = s.fit;
    const peak =
      peakN === null
        ? `no peak (κ = 0): X levels off towards λ/σ = ${ceiling(s.fit)} req/s`
        : `N* = ${peakN} ${s.by === 'instances' ? 'instances' : 'in flight'}, ` +
          `X(N*) = ${peakThroughput?.toFixed(1)} req/s`;
    return `${s.key}: σ = ${sigma.toPrecision(3)}, κ = ${kappa.toPrecision(3)}, ${peak} (${s.points.length} runs)`;
  });
}

/**
 * What a reader wants to know: requests per CPU %, where each implementation stopped scaling, and
 * where the latency was spent.
 * @param {Comparison} comparison @returns {string[]}
 */
export function closingSentences(comparison) {
  const impls = [...new Set(comparison.runs.map((r) => r.implementation ?? r.label))];
  const byImpl = impls.map((impl) => {
    const runs = comparison.runs.filter((r) => (r.implementation ?? r.label) === impl);
    return { impl, runs, perCpu: mean(runs, 'rpm_per_cpu_percent') };
  });
  const sentences = [];
  const ranked = byImpl.filter((i) => i.perCpu !== null).sort((a, b) => (b.perCpu ?? 0) - (a.perCpu ?? 0));
  if (ranked.length > 1) {
    const others = ranked.slice(1).map((i) => `${i.impl} ${i.perCpu?.toFixed(1)}`);
    sentences.push(
      `${ranked[0].impl} did more requests per CPU %: ${ranked[0].perCpu?.toFixed(1)} req/min per CPU % ` +
        `(mean over its runs) against ${others.join(', ')}.`,
    );
  } else if (ranked.length === 1) {
    sentences.push(`${ranked[0].impl} did ${ranked[0].perCpu?.toFixed(1)} req/min per CPU % (mean over its runs).`);
  }
  const peaks = comparison.scaling.map((s) => {
    if (!s.fit) return `${s.key}: no fit`;
    if (s.fit.peakN === null) return `${s.key} levelled off without a peak (κ = 0) towards ${ceiling(s.fit)} req/s`;
    const unit = s.by === 'instances' ? 'instances' : 'in flight';
    return `${s.key} at N* = ${s.fit.peakN} ${unit} (${s.fit.peakThroughput?.toFixed(0)} req/s)`;
  });
  if (peaks.length) sentences.push(`Scaling stopped (USL peak): ${peaks.join('; ')}.`);
  const parts = [
    ['outside the router (client, network)', 'outside_router_mean_ms'],
    ['in gorouter', 'gorouter_mean_ms'],
    ['behind the router (app and database)', 'behind_router_mean_ms'],
  ];
  const latency = byImpl
    .map(({ impl, runs }) => {
      const shares = parts.map(([name, key]) => ({ name, ms: mean(runs, key) })).filter((p) => p.ms !== null);
      if (!shares.length) return null;
      const top = shares.sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))[0];
      return `${impl} ${top.name}, ${top.ms?.toFixed(2)} ms of ${mean(runs, 'e2e_mean_ms')?.toFixed(2)} ms`;
    })
    .filter(Boolean);
  if (latency.length) sentences.push(`Largest latency contributor (mean over the runs): ${latency.join('; ')}.`);
  return sentences;
}
