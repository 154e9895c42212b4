// `paasmon compare --format`: table (a terminal, ≤ 100 columns), md (a pull-request comment),
// json (the contract in docs/comparing-runs.md), junit (one testcase per gated figure), html
// (./html.js). The first line of table and md is the headline: what regressed, by how much, which layer.
import escapeHtml from 'escape-html';
import { escapeMarkdown } from '../render/markdown.js';
import { renderCompareHtml } from './html.js';
import { changeText, intervalText, LAYER_NAMES, signed, valueText } from './words.js';

export const COMPARE_FORMATS = ['table', 'md', 'json', 'junit', 'html'];
const WIDTH = 100;

/** @typedef {ReturnType<typeof import('./index.js').buildCompare>} CompareResult */
/** @typedef {CompareResult['figures'][number]} FigureRow */

/** @param {FigureRow} f */
const nameOf = (f) => `${f.label} ${f.name === 'error_ratio' ? '%' : f.unit}`;

/** @param {FigureRow} f @param {'baseline' | 'candidate'} side */
function sideText(f, side) {
  const s = f[side];
  if (!s) return '–';
  const half = s.half_width === null ? '?' : valueText(f, s.half_width);
  return `${valueText(f, s.value)} ± ${half}`;
}

/** @param {FigureRow} f */
const verdictText = (f) => (f.verdict === 'inconclusive' && f.more_rounds ? `inconcl. +${f.more_rounds}r` : f.verdict);

/** @param {string} text @param {number} width */
const fit = (text, width) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

/** @param {string} text wrapped at WIDTH on spaces, its indentation kept */
function wrap(text) {
  const indent = /^ */.exec(text)?.[0] ?? '';
  const lines = [];
  let line = indent;
  for (const word of text.slice(indent.length).split(' ')) {
    if (line.trim() && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = `${indent}  ${word}`;
    } else line = line.trim() ? `${line} ${word}` : `${line}${word}`;
  }
  return [...lines, line].join('\n');
}

/** Lines under the tables: sides, outliers, what is missing, comparability, seed. @param {CompareResult} r */
function notes(r) {
  const lines = [];
  for (const side of /** @type {const} */ (['baseline', 'candidate'])) {
    const s = r[side];
    lines.push(`${side}: runs ${s.runs.join(', ')} (${s.rounds} rounds, ${s.requests} requests)`);
    for (const o of s.outliers)
      lines.push(`${side}: run ${o.runId} left out, an outlier among its rounds in ${o.figure} (GESD, α 0.05)`);
  }
  for (const reason of r.comparable.reasons)
    lines.push(`not comparable: ${reason}${r.comparable.forced ? ' (compared anyway: --force)' : ''}`);
  for (const line of r.missing) lines.push(line.startsWith('layers:') ? line : `not gated: ${line}`);
  lines.push(
    `gate: ${r.gate.join(', ')} (Holm–Bonferroni); * marks it. Intervals 95 %; bootstrap seed ${r.seed} (--seed)`,
  );
  return lines;
}

/** The layers' mean changes and the tail, as lines. @param {CompareResult} r */
function layerLines(r) {
  const lines = [];
  const mean = r.layers.mean;
  if (mean) {
    lines.push('mean per layer (requests with a router record), ms: baseline → candidate, change, share');
    for (const l of mean.layers) {
      const share = l.share === null ? '' : `  ${signed(100 * l.share, 0)} % of it`;
      const change = `${signed(l.change_ms, 3)}${share}`;
      lines.push(
        `  ${fit(LAYER_NAMES[l.layer], 20)} ${l.baseline_ms.toFixed(3)} → ${l.candidate_ms.toFixed(3)}  ${change}`,
      );
    }
  }
  const tail = r.layers.tail;
  if (tail && tail.candidate_above_baseline_p95 !== null) {
    const pct = (/** @type {number} */ x) => `${(100 * x).toFixed(1)} %`;
    lines.push(
      `tail: the requests slower than each side's p95 (${tail.baseline_p95_ms.toFixed(2)} → ` +
        `${tail.candidate_p95_ms.toFixed(2)} ms), mean per layer, ms` +
        (tail.layer ? `; ${LAYER_NAMES[tail.layer]} grew most` : '') +
        `; ${pct(tail.candidate_above_baseline_p95)} of the candidate's requests are slower than the baseline's p95`,
    );
    for (const l of mean?.layers ?? []) {
      const b = tail.baseline.mean_ms[l.layer];
      const c = tail.candidate.mean_ms[l.layer];
      if (b !== null && c !== null)
        lines.push(`  ${fit(LAYER_NAMES[l.layer], 20)} ${b.toFixed(3)} → ${c.toFixed(3)}  ${signed(c - b, 3)}`);
    }
  }
  return lines;
}

/** @param {CompareResult} r */
export function renderCompareTable(r) {
  const header = `  ${fit('figure', 24)} ${fit('baseline ± 95 %', 16)} ${fit('candidate ± 95 %', 16)} ${fit(
    'change [95 % interval]',
    28,
  )} verdict`;
  const rows = r.figures.map(
    (f) =>
      `${f.gated ? '*' : ' '} ${fit(nameOf(f), 24)} ${fit(sideText(f, 'baseline'), 16)} ${fit(
        sideText(f, 'candidate'),
        16,
      )} ${fit(`${changeText(f)} ${intervalText(f)}`, 28)} ${verdictText(f)}`,
  );
  return [wrap(r.headline), '', header, ...rows, '', ...layerLines(r).map(wrap), '', ...notes(r).map(wrap)]
    .join('\n')
    .concat('\n');
}

/** @param {CompareResult} r */
export function renderCompareMarkdown(r) {
  const cell = (/** @type {string} */ text) => escapeMarkdown(text);
  const rows = r.figures.map((f) =>
    [
      f.gated ? '✱' : '',
      cell(nameOf(f)),
      f.layer ? (LAYER_NAMES[f.layer] ?? f.layer) : '',
      sideText(f, 'baseline'),
      sideText(f, 'candidate'),
      `${changeText(f)} ${intervalText(f)}`,
      f.verdict === 'regressed' ? '**regressed**' : verdictText(f),
    ].join(' | '),
  );
  return [
    `**paasmon compare: ${cell(r.headline)}**`,
    '',
    '| gate | figure | layer | baseline ± 95 % | candidate ± 95 % | change [95 % interval] | verdict |',
    '|:---:|:---|:---|---:|---:|---:|:---|',
    ...rows.map((row) => `| ${row} |`),
    '',
    ...[...layerLines(r), ...notes(r)].map((line) => `- ${cell(line.trim())}`),
  ]
    .join('\n')
    .concat('\n');
}

/** @param {CompareResult} r */
export const renderCompareJson = (r) => `${JSON.stringify(r, null, 2)}\n`;

/** One testcase per gated figure; a regression is a failure, a figure without data skipped. @param {CompareResult} r */
export function renderCompareJunit(r) {
  const gated = r.figures.filter((f) => f.gated);
  const cases = gated.map((f) => {
    const open = `  <testcase classname="paasmon.compare" name="${escapeHtml(f.name)}">`;
    const text = `${f.verdict}: ${changeText(f)} ${intervalText(f)}, threshold ${f.threshold}`;
    if (f.verdict === 'regressed') return `${open}<failure message="${escapeHtml(text)}"/></testcase>`;
    if (f.verdict === 'missing') {
      const line = r.missing.find((m) => m.startsWith(`${f.name}:`)) ?? 'no data';
      return `${open}<skipped message="${escapeHtml(line)}"/></testcase>`;
    }
    return `${open}<system-out>${escapeHtml(text)}</system-out></testcase>`;
  });
  if (r.verdict === 'not_comparable') {
    cases.unshift(
      `  <testcase classname="paasmon.compare" name="comparable"><failure message="${escapeHtml(
        r.comparable.reasons.join('; '),
      )}"/></testcase>`,
    );
  }
  const failures = cases.filter((c) => c.includes('<failure')).length;
  const skipped = cases.filter((c) => c.includes('<skipped')).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="paasmon compare" tests="${cases.length}" failures="${failures}" skipped="${skipped}">`,
    '  <properties>',
    `    <property name="verdict" value="${r.verdict}"/><property name="seed" value="${r.seed}"/>`,
    '  </properties>',
    ...cases,
    '</testsuite>',
  ]
    .join('\n')
    .concat('\n');
}

/** @param {string} format @returns {(r: CompareResult) => string} */
export function compareRenderer(format) {
  const renderers = {
    table: renderCompareTable,
    md: renderCompareMarkdown,
    json: renderCompareJson,
    junit: renderCompareJunit,
    html: renderCompareHtml,
  };
  return renderers[/** @type {keyof typeof renderers} */ (format)];
}
