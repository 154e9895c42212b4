// The comparison in words: the first line of every format (which figure regressed, by how much,
// which layer), the lines for gated figures that have no data, and numbers as the renderers show them.

export const LAYER_NAMES = /** @type {Record<string, string>} */ ({
  outside_router: 'outside the router',
  router: 'in the router',
  behind_router: 'behind the router',
});

/** @param {number} x @param {number} [digits] */
export const signed = (x, digits = 1) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;

/**
 * A change as text: +12.3 % for a ratio, +0.40 pt for a difference of ratios (errors).
 * @param {{ change: number | null, change_kind: string }} row @param {number | null} [value] default the row's change
 */
export function changeText(row, value = row.change) {
  if (value === null) return '–';
  return row.change_kind === 'ratio' ? `${signed(100 * value)} %` : `${signed(100 * value, 2)} pt`;
}

/** @param {{ interval: [number, number] | null, change_kind: string, change: number | null }} row */
export const intervalText = (row) =>
  row.interval ? `[${changeText(row, row.interval[0])}, ${changeText(row, row.interval[1])}]` : '';

/**
 * A figure's value in its display unit (ratios as %).
 * @param {{ name: string }} row @param {number | null} value
 */
export function valueText(row, value) {
  if (value === null || value === undefined) return '–';
  const shown = row.name === 'error_ratio' ? 100 * value : value;
  const abs = Math.abs(shown);
  return shown.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

/**
 * @param {Record<string, any>} result of buildCompare
 * @returns {string}
 */
export function headline(result) {
  const forced = result.comparable.forced ? ' (not comparable, compared with --force)' : '';
  if (result.verdict === 'not_comparable') {
    return `not comparable: ${result.comparable.reasons.join('; ')} (--force compares anyway)`;
  }
  const gated = result.figures.filter((/** @type {any} */ f) => f.gated && f.verdict !== 'missing');
  const by = (/** @type {string} */ v) => gated.filter((/** @type {any} */ f) => f.verdict === v);
  const mean = result.layers.mean;
  const layer = result.layer
    ? `; ${LAYER_NAMES[result.layer]} carries ` +
      `${mean.layers.find((/** @type {any} */ l) => l.layer === result.layer).change_ms >= 0 ? '+' : '−'}` +
      `${Math.abs(mean.layers.find((/** @type {any} */ l) => l.layer === result.layer).change_ms).toFixed(2)} ms ` +
      `of the mean e2e change of ${signed(mean.total_change_ms, 2)} ms`
    : '';
  const list = (/** @type {any[]} */ rows) =>
    rows.map((f) => `${f.label} ${changeText(f)} ${intervalText(f)}`).join(', ');
  if (result.verdict === 'regressed' || result.verdict === 'improved') {
    const limit = result.verdict === 'regressed' ? 'beyond' : 'better than';
    return `${result.verdict}: ${list(by(result.verdict))} ${limit} the noise threshold${layer}${forced}`;
  }
  if (result.verdict === 'inconclusive') {
    const open = by('inconclusive');
    if (open.length === 0) return `inconclusive: no gated figure has data on both sides${forced}`;
    const more = Math.max(0, ...open.map((/** @type {any} */ f) => f.more_rounds ?? 0));
    const hint = more ? `; about ${more} more round${more === 1 ? '' : 's'} per side would likely settle it` : '';
    return `inconclusive: ${list(open)} neither clear of nor within the noise threshold${hint}${forced}`;
  }
  return `unchanged: every gated figure within its noise threshold (${list(gated)})${forced}`;
}

/**
 * What a gated figure lacks and the command that collects it.
 * @param {string} name
 * @param {{ baseline: Array<{ run: Record<string, any> }>, candidate: Array<{ run: Record<string, any> }> }} data
 */
export function missingLine(name, data) {
  const runs = [...data.baseline, ...data.candidate].map((d) => d.run);
  const ids = runs.map((r) => r.run_id).join(', ');
  const apps = [...new Set(runs.map((r) => r.app_name ?? '(none)'))].join(', ');
  if (name === 'cpu_ms_per_request' || name === 'memory_mib') {
    return (
      `${name}: no instance samples of app ${apps} during runs ${ids} on one side; ` +
      'run `paasmon collect` (CF_APPS including the app) while the runs go on'
    );
  }
  if (/router/.test(name)) {
    return (
      `${name}: no router records matched the requests of runs ${ids} on one side; ` +
      'ingest the gorouter logs (`paasmon ingest`), then `paasmon correlate --run ID`'
    );
  }
  return (
    `${name}: no load-generator requests in the steady window on one side; ` +
    'record them with `paasmon loadgen` or `paasmon import`'
  );
}

/**
 * Why no layer is named: the runs whose requests matched no router record (a tool that sent no ids,
 * or router logs not ingested), with their tools, and what to do.
 * @param {{ baseline: import('./rounds.js').RunData[], candidate: import('./rounds.js').RunData[] }} data
 */
export function layersMissingLine(data) {
  const all = [...data.baseline, ...data.candidate];
  const unmatched = all.filter((d) => d.blocks.every((b) => b.matched === 0));
  const runs = (unmatched.length ? unmatched : all).map((d) => d.run);
  const tools = [...new Set(runs.map((r) => r.meta?.tool).filter(Boolean))];
  return (
    `layers: no router records matched the requests of runs ${runs.map((r) => r.run_id).join(', ')}` +
    `${tools.length ? ` (${tools.join(', ')})` : ''}, so no layer is named; ingest the gorouter logs ` +
    '(`paasmon ingest`), and send an id per request from the tool (`paasmon correlate --run ID` says how)'
  );
}
