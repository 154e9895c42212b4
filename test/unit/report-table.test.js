// The terminal table of `paasmon report` as a person reads it in a 100-column terminal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RUN_COLUMNS } from '../../report/columns.js';
import { fewReadingsNote, MIN_CPU_READINGS, readingsPerInstance } from '../../report/comparison.js';
import { renderTable, wrapped } from '../../report/render/table.js';

const MIB = 1024 * 1024;

/** A run as the demo measures it, with every column filled. @param {number} id @param {number} instances */
const demoRun = (id, instances) => ({
  run_id: id,
  label: `node ${instances} instance${instances > 1 ? 's' : ''}`,
  app_name: 'bulletin-board',
  implementation: 'node',
  instances,
  parallel: 8,
  cores_per_instance: 1,
  round: null,
  meta: { url: 'http://127.0.0.1:40437/api/board', duration: '20s', demo: 'true' },
  window_s: 16,
  requests: 27764,
  successful: 27764,
  errors: 0,
  timeouts: 0,
  error_ratio: 0,
  throughput_rps: 1735.1,
  throughput_rpm: 104104,
  e2e_mean_ms: 4.6,
  e2e_p50_ms: 4.2,
  e2e_p90_ms: 6.72,
  e2e_p95_ms: 7.98,
  e2e_p99_ms: 11.73,
  e2e_max_ms: 234.18,
  e2e_stddev_ms: 2.39,
  matched_ratio: 1,
  router_mean_ms: 3.57,
  router_p50_ms: 3.26,
  router_p95_ms: 6.24,
  router_p99_ms: 9.92,
  outside_router_mean_ms: 1.04,
  gorouter_mean_ms: 0.04,
  behind_router_mean_ms: 3.53,
  cpu_polls: 16,
  cpu_percent_avg: 33.5,
  cpu_percent_peak: 36,
  cpu_capacity_percent: 100 * instances,
  cpu_utilization_percent: 36 / instances,
  rpm_per_cpu_percent: 3106.5,
  mem_bytes_avg: 68.6 * MIB * instances,
  mem_bytes_peak: 71.1 * MIB * instances,
});

/** @param {Record<string, any>[]} runs @returns {import('../../report/comparison.js').Comparison} */
const comparison = (runs) => ({
  generatedAt: '2026-11-25T10:00:00.000Z',
  trim: 0.1,
  runs,
  errors: [],
  rounds: [],
  instanceSeries: [],
  paths: [{ run_id: 1, path: '/api/board', requests: 27764, response_time_mean_ms: 3.57, response_time_p95_ms: 6.24 }],
  scaling: [
    {
      key: 'node',
      by: 'instances',
      points: [],
      message: 'no scalability fit: the Universal Scalability Law needs at least 6 runs with a throughput, got 3',
      fit: null,
    },
  ],
  notes: [`run 9 (${'x'.repeat(150)}): no instance samples in the window, so the CPU and memory columns are empty`],
});

/** @param {string} text */
const widest = (text) => Math.max(...text.split('\n').map((line) => [...line].length));

describe('paasmon report as a terminal table', () => {
  it("the demo's three runs: side by side within 100 columns, every figure a row, the legend below", () => {
    const text = renderTable(comparison([demoRun(1, 1), demoRun(2, 2), demoRun(3, 4)]));
    assert.ok(widest(text) <= 100, text);
    assert.equal(text.split('\n').filter((l) => /^figure\s+run 1\s+run 2\s+run 3$/.test(l)).length, 1, text);
    for (const column of RUN_COLUMNS.slice(1)) assert.match(text, new RegExp(`^${escape(column.header)}( |$)`, 'm'));
    assert.match(text, /^throughput req\/s\s+1735\.1\s+1735\.1\s+1735\.1$/m);
    assert.match(text, /^CPU utilised %\s+36\.0\s+18\.0\s+9\.0$/m);
    assert.match(text, /^where\n {2}parameters: /m);
    assert.match(text, /^ {2}CPU utilised %: CPU peak \/ CPU capacity \(thesis table 7\.1\)$/m);
    // The first column holds short names; no row name is a sentence any more.
    const names = text
      .split('\n')
      .filter((l) => /\s\d+\.\d+$/.test(l))
      .map((l) => l.split(/\s{2,}/)[0]);
    assert.ok(Math.max(...names.map((n) => n.length)) <= 22, names.join('\n'));
  });

  it('many runs come in blocks, each with the figure names, and long notes wrap', () => {
    const runs = Array.from({ length: 9 }, (_, i) => demoRun(i + 1, i + 1));
    const text = renderTable(comparison(runs));
    assert.ok(widest(text) <= 100, text);
    const headers = text.split('\n').filter((l) => l.startsWith('figure '));
    assert.ok(headers.length >= 2, headers.join('\n'));
    assert.deepEqual(
      headers.join(' ').match(/run \d+/g),
      runs.map((r) => `run ${r.run_id}`),
    );
    assert.match(text, /no instance samples in the window/);
  });

  it('wraps at spaces, cuts a word longer than a line, and indents what follows', () => {
    assert.equal(wrapped('aaa bbb ccc', 7, '  '), 'aaa bbb\n  ccc');
    assert.equal(wrapped('abcdefghij', 4, ' '), 'abcd\n efg\n hij');
    assert.equal(wrapped('short', 10), 'short');
  });
});

/** @param {string} text */
function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

it('a run whose CPU rests on few of the platform readings says so, with the run length that would do', () => {
  // A 60 s run, trim 0.1: its window is 48 s, from 6 s to 54 s. Instance 0 measured every 12 s from 0 s
  // (readings at 12, 24, 36, 48 inside), instance 1 every 6 s from 3 s (8 inside); polled every second.
  const run = { run_id: 7, cpu_polls: 12, window_s: 48 };
  const series = [];
  for (let t = 0; t <= 60; t++) {
    series.push({ run_id: 7, process_type: 'web', instance_index: 0, t_s: t, repeated: t % 12 !== 0 || undefined });
    series.push({ run_id: 7, process_type: 'web', instance_index: 1, t_s: t, repeated: t % 6 !== 3 || undefined });
  }
  series.push({ run_id: 8, process_type: 'web', instance_index: 2, t_s: 10 });
  const perInstance = readingsPerInstance(run, series, 0.1);
  assert.equal(perInstance, [12, 24, 36, 48].length);
  // 4 readings in 48 s: one every 12 s; 10 need 120 s of window, 150 s of run.
  assert.equal(
    fewReadingsNote(run, 0.1, perInstance),
    'its CPU figures rest on 4 readings of the platform per instance in its 48 s window (about one every ' +
      '12.0 s); a run of at least 150 s would give 10',
  );
  assert.equal(fewReadingsNote(run, 0.1, MIN_CPU_READINGS), undefined);
  assert.equal(fewReadingsNote({ ...run, cpu_polls: 0 }, 0.1, undefined), undefined, 'no samples: its own note');
  assert.match(String(fewReadingsNote({ cpu_polls: 1, window_s: 30 }, 0, undefined)), /on 1 reading .* 300 s/);
});
