// report/changes/ against the real Apache Otava: the same series, written to CSV files that
// `otava analyze` reads through its CSV importer, must give the same change points (minSegment 1
// is Otava's own rule). Otava missing fails the test: run bash test/support/load-tools/install.sh.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { changePoints } from '../../report/changes/otava.js';
import { otavaChangePoints } from '../support/otava.js';
import { noise, series } from '../support/noisy-series.js';

/**
 * Series of one length: shifts up and down at chosen runs, a spike, steps of whole numbers (equal
 * values, so ties in the search), flat noise.
 * @param {number} n @param {number} seed @returns {Record<string, number[]>}
 */
function histories(n, seed) {
  const at = (/** @type {number} */ f) => Math.floor(n * f);
  const spiked = series(n, () => 40, 1, seed + 5);
  spiked[n - 3] = 70;
  const coarse = noise(seed + 7);
  return {
    one_shift: series(n, (i) => (i < at(0.6) ? 100 : 112), 3, seed),
    two_shifts: series(n, (i) => (i < at(0.3) ? 10 : i < at(0.7) ? 8 : 9.5), 0.3, seed + 1),
    small_shift: series(n, (i) => (i < at(0.5) ? 200 : 204), 2, seed + 2),
    flat: series(n, () => 5, 0.5, seed + 3),
    drift: series(n, (i) => 50 + i * 0.2, 1, seed + 4),
    spike: spiked,
    whole_numbers: Array.from({ length: n }, (_, i) => Math.round((i < at(0.5) ? 20 : 23) + 1.2 * coarse())),
  };
}

const LENGTHS = { short: 24, medium: 70, long: 160 };

/** @param {string} dir @param {string} name @param {Record<string, number[]>} metrics */
function writeCsv(dir, name, metrics) {
  const names = Object.keys(metrics);
  const n = metrics[names[0]].length;
  const start = Date.now() - (n + 1) * 3600_000;
  const lines = [['time', ...names].join(',')];
  for (let i = 0; i < n; i++)
    lines.push([new Date(start + i * 3600_000).toISOString(), ...names.map((m) => String(metrics[m][i]))].join(','));
  const file = path.join(dir, `${name}.csv`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test("the change points of Otava's CSV importer and `otava analyze`, for windows of 50 and of 10", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-otava-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** @type {Record<string, Record<string, number[]>>} */
  const data = {};
  const config = ['tests:'];
  for (const [name, n] of Object.entries(LENGTHS)) {
    data[name] = histories(n, n);
    const file = writeCsv(dir, name, data[name]);
    config.push(`  ${name}:`, '    type: csv', `    file: ${file}`, '    time_column: time');
    config.push(`    metrics: [${Object.keys(data[name]).join(', ')}]`);
  }
  const configFile = path.join(dir, 'otava.yaml');
  fs.writeFileSync(configFile, `${config.join('\n')}\n`);
  let found = 0;
  for (const window of [50, 10]) {
    const otava = await otavaChangePoints(configFile, Object.keys(LENGTHS), {}, ['--window', String(window)]);
    for (const [name, metrics] of Object.entries(data)) {
      for (const [metric, values] of Object.entries(metrics)) {
        const ours = changePoints(values, { window, minSegment: 1 }).map((p) => p.index);
        assert.deepEqual(ours, otava[name][metric] ?? [], `${name}.${metric}, window ${window}`);
        found += ours.length;
      }
    }
  }
  assert.ok(found >= 20, `the series have change points to agree on (${found})`);
});
