// The folders are the pipeline's stages, and imports go one way: core <- report <- exporters <- loadgen <- sandbox
// <- collector. This reads every product module's imports (static, dynamic and JSDoc type imports)
// and fails on an import "up" a stage or on any cycle.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Lower stages first; a module may import its own stage and those before it. */
const STAGES = ['core', 'report', 'exporters', 'loadgen', 'sandbox', 'collector'];
const SPECIFIER = /(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** @param {string} dir @returns {string[]} */
function modules(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return modules(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });
}

/** @param {string} file */
function importsOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) => path.resolve(path.dirname(file), m[1]));
}

/** @param {string} file */
const stageOf = (file) => STAGES.indexOf(path.relative(ROOT, file).split(path.sep)[0]);

describe('module layers', () => {
  const files = STAGES.flatMap((stage) => modules(path.join(ROOT, stage)));
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => stageOf(target) >= 0)]));

  it('finds the product modules and their imports', () => {
    assert.ok(files.length > 30, `${files.length} modules`);
    assert.ok([...graph.values()].flat().length > 50, 'imports between them');
  });

  it('imports only its own stage or stages before it', () => {
    const up = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (stageOf(target) > stageOf(file)) up.push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`);
      }
    }
    assert.deepEqual(up, []);
  });

  // shared/design/layers.json "never": a source yields records, skips and checkpoints; it writes
  // through no sink and is driven by the pipeline, never the other way.
  it('keeps sources, the load generator and the report apart from the sinks', () => {
    const part = (/** @type {string} */ file) => {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      if (rel.startsWith('collector/sources/')) return 'sources';
      if (rel.startsWith('collector/pipeline/')) return 'pipeline';
      if (rel.startsWith('exporters/')) return 'sinks';
      if (rel.startsWith('core/')) return 'core';
      if (rel.startsWith('loadgen/')) return 'loadgen';
      if (rel.startsWith('report/')) return 'report';
      return 'other';
    };
    const never = new Set([
      ...['sources>sinks', 'sources>pipeline', 'core>sinks', 'sinks>sources'],
      // The generator hands its rows to a sink it is given; the report works on figures it is given.
      ...['loadgen>sinks', 'report>sinks'],
    ]);
    const crossing = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (never.has(`${part(file)}>${part(target)}`))
          crossing.push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`);
      }
    }
    assert.deepEqual(crossing, []);
  });

  it('has no import cycle', () => {
    /** @type {Map<string, 'visiting' | 'done'>} */
    const state = new Map();
    /** @type {string[]} */
    const cycles = [];
    /** @param {string} file @param {string[]} trail */
    const visit = (file, trail) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(ROOT, f)).join(' -> '));
        return;
      }
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    assert.deepEqual(cycles, []);
  });
});
