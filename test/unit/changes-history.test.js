// `paasmon changes` over rows of run_history: each change point's run, direction (by the figure's
// better side), size, and the layer whose mean moved; runs without a figure left out of its series.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { FIGURE_NAMES, findChanges } from '../../report/changes/history.js';
import { renderChangesJson, renderChangesTable } from '../../report/changes/render.js';
import { series } from '../support/noisy-series.js';

/** 30 runs: the client side (outside the router) 3 ms slower from run 120 on, the app steady. */
function history() {
  const outside = series(30, (i) => (i < 20 ? 4 : 7), 0.2, 1);
  const app = series(30, () => 15, 0.2, 2);
  const throughput = series(30, (i) => (i < 10 ? 200 : 260), 2, 3);
  return outside.map((o, i) => ({
    run_id: 100 + i,
    label: 'java 2 instances',
    started_at: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    throughput_rps: throughput[i],
    e2e_mean_ms: o + app[i],
    outside_router_mean_ms: o,
    router_mean_ms: app[i],
    // Run 105 has no CPU samples: its CPU figure is NULL.
    cpu_ms_per_request: i === 5 ? null : i < 25 ? 2 + 0.01 * (i % 3) : 2.5 + 0.01 * (i % 3),
  }));
}

test('each change point names its first run, direction, size and the layer that moved', () => {
  const rows = history();
  const found = findChanges(rows);
  const pick = (/** @type {string} */ figure) => found.filter((c) => c.figure === figure);
  const [e2e] = pick('e2e_mean_ms');
  assert.equal(e2e.run_id, 120);
  assert.equal(e2e.previous_run_id, 119);
  assert.equal(e2e.direction, 'regression', 'slower');
  assert.equal(e2e.layer, 'outside_router');
  const mean = (/** @type {number[]} */ xs) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const outsideMove =
    mean(rows.slice(20).map((r) => r.outside_router_mean_ms)) -
    mean(rows.slice(0, 20).map((r) => r.outside_router_mean_ms));
  assert.ok(Math.abs(/** @type {number} */ (e2e.layer_change_ms.outside_router) - outsideMove) < 1e-9);
  assert.ok(Math.abs(e2e.change_percent - (e2e.mean_after / e2e.mean_before - 1) * 100) < 1e-9);
  const [throughput] = pick('throughput_rps');
  assert.equal(throughput.run_id, 110);
  assert.equal(throughput.direction, 'improvement', 'more requests a second is better');
  assert.deepEqual(pick('router_mean_ms'), [], 'the app did not move');
  // The CPU series has 29 runs (105 has none): its change at run 125 is at index 24 of them.
  const [cpu] = pick('cpu_ms_per_request');
  assert.deepEqual([cpu.run_id, cpu.index, cpu.direction], [125, 24, 'regression']);
  assert.deepEqual(
    found.map((c) => c.run_id),
    [110, 120, 120, 125],
    'ordered by run',
  );
  assert.deepEqual(
    findChanges(rows, { only: 'throughput_rps' }).map((c) => c.figure),
    ['throughput_rps'],
  );
});

test('the json format carries change_points with run_id; the table says when none was found', () => {
  const rows = history();
  const options = { window: 50, maxPValue: 0.001, minMagnitude: 0, minSegment: 2 };
  const result = { selection: { label: 'java 2 instances' }, options, runs: rows, figures: FIGURE_NAMES };
  const json = JSON.parse(renderChangesJson({ ...result, changePoints: findChanges(rows) }));
  assert.deepEqual(
    json.change_points.map((/** @type {any} */ c) => [c.run_id, c.figure]),
    [
      [110, 'throughput_rps'],
      [120, 'e2e_mean_ms'],
      [120, 'outside_router_mean_ms'],
      [125, 'cpu_ms_per_request'],
    ],
  );
  assert.deepEqual(json.options, { p_value: 0.001, magnitude: 0, window: 50, min_segment: 2 });
  const none = renderChangesTable({ ...result, runs: rows.slice(0, 3), changePoints: [] });
  assert.match(none, /^3 ended runs of label "java 2 instances" \(runs 100 \.\. 102\): no change point\./);
  assert.match(none, /Too few runs to find a change: at least 4 are needed\./);
});

test("the command's help lists the figures run_history has", () => {
  const tree = fs.readFileSync(new URL('../../collector/analysis-commands.js', import.meta.url), 'utf8');
  const listed = /const FIGURE_LIST =\s*([^;]+);/.exec(tree)?.[1];
  assert.ok(listed);
  const names = [...listed.matchAll(/'([^']*)'/g)].map((m) => m[1]).join('');
  assert.deepEqual(names.split(', '), FIGURE_NAMES);
  const view = fs.readFileSync(new URL('../../sql/views/40_run_history.sql', import.meta.url), 'utf8');
  for (const name of FIGURE_NAMES) assert.match(view, new RegExp(`\\b${name}\\b`), name);
});

test("the three layers of compare: the router's response time is named by the one of its two that moved", () => {
  // From run 20 on: the client side 3 ms slower, the app behind the router 1 ms, the router itself steady.
  const outside = series(30, (i) => (i < 20 ? 4 : 7), 0.1, 4);
  const router = series(30, () => 0.5, 0.01, 5);
  const behind = series(30, (i) => (i < 20 ? 10 : 11), 0.1, 6);
  const rows = outside.map((o, i) => ({
    run_id: 200 + i,
    label: 'node 1 instance',
    started_at: new Date(Date.UTC(2026, 10, 1 + i)).toISOString(),
    e2e_mean_ms: o + router[i] + behind[i],
    outside_router_mean_ms: o,
    router_mean_ms: router[i] + behind[i],
    gorouter_mean_ms: router[i],
    behind_router_mean_ms: behind[i],
  }));
  const found = findChanges(rows);
  const pick = (/** @type {string} */ figure) => found.filter((c) => c.figure === figure);
  const [e2e] = pick('e2e_mean_ms');
  assert.deepEqual([e2e.run_id, e2e.layer], [220, 'outside_router']);
  const mean = (/** @type {number[]} */ xs) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const moved = (/** @type {number[]} */ xs) => mean(xs.slice(20)) - mean(xs.slice(0, 20));
  assert.deepEqual(Object.keys(e2e.layer_change_ms), ['outside_router', 'router', 'behind_router']);
  assert.ok(Math.abs(/** @type {number} */ (e2e.layer_change_ms.router) - moved(router)) < 1e-9);
  assert.ok(Math.abs(/** @type {number} */ (e2e.layer_change_ms.behind_router) - moved(behind)) < 1e-9);
  const [routerAndApp] = pick('router_mean_ms');
  assert.deepEqual([routerAndApp.run_id, routerAndApp.layer], [220, 'behind_router'], 'not outside_router');
  assert.deepEqual(
    pick('behind_router_mean_ms').map((c) => [c.run_id, c.layer]),
    [[220, 'behind_router']],
  );
  assert.deepEqual(pick('gorouter_mean_ms'), [], 'the router itself did not move');
});
