// One chart as an SVG string, rendered on the server by Apache ECharts (SSR mode, renderToSVGString):
// no browser, no script in the page, no request when it is opened.
import { createRequire } from 'node:module';
import { ConfigError } from '../core/errors.js';
import { withTips } from './chart-points.js';

/**
 * ECharts, an optional dependency (the app staged on Cloud Foundry leaves it out): loaded with this
 * module, which only the html renderer's charts import, and only when that renderer is asked for.
 * @returns {typeof import('echarts')}
 */
function loadEcharts() {
  try {
    // The one-file build: it loads faster than its ESM tree of small modules.
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

// Okabe-Ito: told apart with the common colour-vision deficiencies, and in grey print.
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

/** @typedef {{ id: string, title: string, svg: string | null, points: number, empty: string | null }} Chart */

let rendered = 0;

/**
 * @param {string} id @param {string} title @param {any} option ECharts option
 * @param {number} points marks drawn for measured values (0: the chart is replaced by `empty`)
 * @param {string} empty what is missing when there is nothing to draw
 * @param {string[][]} [tips] text shown on hover over each point, by series and data index
 * @returns {Chart}
 */
export function chart(id, title, option, points, empty, tips = []) {
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
export const axis = (name, type = 'value') => ({
  type,
  name,
  nameLocation: 'middle',
  nameGap: type === 'category' ? 44 : 52,
  scale: type === 'value',
  nameTextStyle: { fontSize: 13 },
});
