#!/usr/bin/env node
// Writes the dashboards as JSON (`npm run dashboards`). The JSON is committed, so Grafana and
// people importing by hand need no build; test/unit/dashboards.test.js fails when it is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveRunDashboard } from './src/live-run.js';
import { routerDetailDashboard } from './src/router-detail.js';
import { runsDashboard } from './src/runs.js';

export const DASHBOARD_DIR = path.dirname(fileURLToPath(import.meta.url));

/** File name -> dashboard JSON text, exactly as committed. */
export function generateDashboards() {
  /** @type {Record<string, string>} */
  const files = {};
  for (const [name, make] of /** @type {const} */ ([
    ['live-run.json', liveRunDashboard],
    ['runs.json', runsDashboard],
    ['router-detail.json', routerDetailDashboard],
  ])) {
    files[name] = `${JSON.stringify(make(), null, 2)}\n`;
  }
  return files;
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const [name, text] of Object.entries(generateDashboards())) {
    fs.writeFileSync(path.join(DASHBOARD_DIR, name), text);
    process.stdout.write(`${path.join('dashboards', name)}\n`);
  }
}
