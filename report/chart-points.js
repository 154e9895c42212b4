// The measured points of the report's scatter charts: series per implementation, each point
// labelled with its load and run id, and a hover text per point as an SVG <title> (no script).
import escapeHtml from 'escape-html';

/** @typedef {Record<string, any>} Row */

/** @param {Row} a @param {Row} b */
const byLoad = (a, b) =>
  (a.parallel ?? 0) - (b.parallel ?? 0) || (a.instances ?? 0) - (b.instances ?? 0) || a.run_id - b.run_id;

/**
 * Series of one implementation (or label), points joined in the order of the load. Each point is
 * labelled with its load (the one that varies in its series) and run id, and has a hover text
 * with its numbers.
 * @param {Row[]} runs @param {(r: Row) => [any, any]} xy
 * @param {[string, string]} names the x and y figures with their units, for the hover text
 */
export function groupedLines(runs, xy, names) {
  /** @type {Map<string, Row[]>} */
  const groups = new Map();
  for (const run of [...runs].sort(byLoad)) {
    const [x, y] = xy(run);
    if (x == null || y == null || !Number.isFinite(x) || !Number.isFinite(y)) continue;
    const key = run.implementation ?? run.label;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const series = [...groups].map(([name, group]) => {
    const varies = (/** @type {string} */ field) => new Set(group.map((r) => r[field])).size > 1;
    const byParallel = varies('parallel') && !varies('instances');
    return {
      name,
      type: 'line',
      showSymbol: true,
      showAllSymbol: true,
      symbolSize: 9,
      label: { show: true, position: 'top', fontSize: 11, formatter: (/** @type {any} */ p) => p.data.pointLabel },
      labelLayout: { moveOverlap: 'shiftY' },
      data: group.map((run) => ({
        value: xy(run),
        pointLabel: `${pointLoad(run, byParallel)}run ${run.run_id}`,
        tip: pointTip(run, xy(run), names),
      })),
    };
  });
  return {
    series,
    points: series.reduce((n, s) => n + s.data.length, 0),
    tips: series.map((s) => s.data.map((d) => d.tip)),
  };
}

/**
 * The load a point was measured at: parallel requests when that is what varies in its series,
 * else instances; nothing when the run has neither.
 * @param {Row} run @param {boolean} byParallel
 */
function pointLoad(run, byParallel) {
  if (run.parallel != null && (byParallel || run.instances == null)) return `${run.parallel} parallel · `;
  return run.instances == null ? '' : `${run.instances} inst · `;
}

/** @param {number} value */
const shown = (value) => Number(value.toPrecision(5)).toString();

/** @param {Row} run @param {[number, number]} xy @param {[string, string]} names */
const pointTip = (run, [x, y], names) =>
  [
    `run ${run.run_id} ${run.label}`,
    `instances ${run.instances ?? '?'}, parallel requests ${run.parallel ?? '?'}`,
    `${names[0]}: ${shown(x)}`,
    `${names[1]}: ${shown(y)}`,
  ].join('\n');

/**
 * Gives each data mark of the SVG a <title> child: the browser shows it on hover, with no script.
 * Marks are the elements ECharts' SSR tags with their series and data index.
 * @param {string} svg @param {string[][]} tips
 */
export function withTips(svg, tips) {
  if (!tips.length) return svg;
  return svg.replace(
    /<(path|circle|rect)\b([^>]*?ecmeta_ssr_type="chart"[^>]*?)(\/>|>(?=<\/\1>))/g,
    (mark, tag, attrs) => {
      const series = /ecmeta_series_index="(\d+)"/.exec(attrs)?.[1];
      const index = /ecmeta_data_index="(\d+)"/.exec(attrs)?.[1];
      const tip = series === undefined || index === undefined ? undefined : tips[Number(series)]?.[Number(index)];
      if (tip === undefined) return mark;
      const title = `<title>${escapeHtml(tip)}</title>`;
      return mark.endsWith('/>') ? `<${tag}${attrs}>${title}</${tag}>` : `<${tag}${attrs}>${title}`;
    },
  );
}
