// `paasmon compare --format html`: one self-contained page (inline SVG, no script) with the
// headline, each figure's change as an interval bar against its ±threshold band, grouped by layer,
// and the table; the same section in `paasmon report --format html`. Every string from the data is escaped.
import escapeHtml from 'escape-html';
import { changeText, intervalText, LAYER_NAMES, valueText } from './words.js';

const GROUPS = /** @type {const} */ ([
  ['e2e', 'end to end'],
  ['outside_router', LAYER_NAMES.outside_router],
  ['router', LAYER_NAMES.router],
  ['behind_router', LAYER_NAMES.behind_router],
  [null, 'the app and the load'],
]);
const COLORS = /** @type {Record<string, string>} */ ({
  regressed: '#c0392b',
  improved: '#1e8449',
  unchanged: '#566573',
  inconclusive: '#b7950b',
});
const ROW = 26;
const LABEL = 190;
const PLOT = 420;

/** @typedef {ReturnType<typeof import('./index.js').buildCompare>} CompareResult */
/** @typedef {CompareResult['figures'][number]} FigureRow */

/**
 * Interval bars of some figures on one axis of percent change (percentage points for errors).
 * @param {FigureRow[]} rows
 */
function bars(rows) {
  const shown = /** @type {Array<FigureRow & { interval: [number, number] }>} */ (rows.filter((f) => f.interval));
  if (shown.length === 0) return '';
  const reach = Math.max(...shown.flatMap((f) => [Math.abs(f.interval[0]), Math.abs(f.interval[1]), f.threshold]));
  const x = (/** @type {number} */ v) => LABEL + PLOT / 2 + (v / (reach * 1.1)) * (PLOT / 2);
  const height = shown.length * ROW + 20;
  const parts = shown.map((f, i) => {
    const y = i * ROW + 14;
    const color = COLORS[f.verdict] ?? '#000';
    const width = x(f.threshold) - x(-f.threshold);
    const band = `<rect x="${x(-f.threshold)}" y="${y - 9}" width="${width}" height="18" fill="#eaeded"/>`;
    const [low, high] = f.interval.map(x);
    const line = `<line x1="${low}" x2="${high}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="4"/>`;
    const dot = `<circle cx="${x(/** @type {number} */ (f.change))}" cy="${y}" r="4" fill="${color}"/>`;
    const title = `<title>${escapeHtml(`${f.label}: ${changeText(f)} ${intervalText(f)}, ${f.verdict}`)}</title>`;
    const label = `<text x="0" y="${y + 4}" font-size="12">${escapeHtml(f.label)}${f.gated ? ' *' : ''}</text>`;
    const verdict = `<text x="${LABEL + PLOT + 8}" y="${y + 4}" font-size="12" fill="${color}">${f.verdict}</text>`;
    return `<g>${title}${band}${line}${dot}${label}${verdict}</g>`;
  });
  const zero = `<line x1="${x(0)}" x2="${x(0)}" y1="0" y2="${height - 16}" stroke="#999"/>`;
  const scale = `<text x="${x(0)}" y="${height - 2}" font-size="11" text-anchor="middle">0</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL + PLOT + 100}" height="${height}">${zero}${scale}${parts.join('')}</svg>`;
}

/**
 * The comparison as a part of a page: the headline, each figure's interval bar by layer, the
 * figures table and the notes. With a title (a section of a longer page, `paasmon report`), the
 * title heads it at h2 and the headline is its first paragraph; else the headline is the h1.
 * @param {CompareResult} r @param {{ title?: string }} [options]
 */
export function compareSection(r, { title } = {}) {
  const level = title === undefined ? 1 : 2;
  const sections = GROUPS.map(([layer, name]) => {
    const svg = bars(r.figures.filter((f) => f.layer === layer));
    return svg ? `<h${level + 1}>${escapeHtml(name)}</h${level + 1}>\n${svg}` : '';
  }).filter(Boolean);
  const head =
    '<tr><th></th><th>figure</th><th>baseline</th><th>candidate</th><th>change [95 %]</th><th>verdict</th></tr>';
  const side = (/** @type {FigureRow} */ f, /** @type {'baseline' | 'candidate'} */ s) =>
    f[s] ? `${valueText(f, f[s].value)} ± ${f[s].half_width === null ? '?' : valueText(f, f[s].half_width)}` : '–';
  const body = r.figures
    .map((f) =>
      [
        f.gated ? '*' : '',
        `${f.label} ${f.unit}`,
        side(f, 'baseline'),
        side(f, 'candidate'),
        `${changeText(f)} ${intervalText(f)}`,
        f.verdict,
      ]
        .map((cell) => `<td>${escapeHtml(cell)}</td>`)
        .join(''),
    )
    .map((cells) => `<tr>${cells}</tr>`)
    .join('\n');
  const notes = [...r.comparable.reasons, ...r.missing, `bootstrap seed ${r.seed}; * gated (Holm–Bonferroni)`];
  const top =
    title === undefined
      ? `<h1>${escapeHtml(r.headline)}</h1>`
      : `<h2>${escapeHtml(title)}</h2>\n<p class="verdict"><strong>${escapeHtml(r.headline)}</strong></p>`;
  return `<section class="compare" data-verdict="${escapeHtml(r.verdict)}">
${top}
<p>Change candidate / baseline with its 95 % interval; the grey band is ±the noise threshold.</p>
${sections.join('\n')}
<h${level + 1}>Figures</h${level + 1}>
<table>${head}
${body}
</table>
<ul>${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>
</section>`;
}

/** Style of compareSection's table: numbers to the right, the figure's name to the left. */
export const COMPARE_STYLE =
  '.compare td,.compare th{padding:2px 8px;text-align:right}.compare td:nth-child(2){text-align:left}';

/** @param {CompareResult} r */
export function renderCompareHtml(r) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>paasmon compare</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}${COMPARE_STYLE}</style></head><body>
${compareSection(r)}
</body></html>
`;
}
