#!/usr/bin/env node
// paasmon: vegeta targets (-format=json), one fresh correlation id each, in X-Correlation-Id and
// in the URL (`paasmon_id=`): vegeta's results keep the URL but no request header, so the import
// reads the id from there. Make at least rate x duration targets: without -lazy vegeta cycles them.
//   node vegeta-targets.js URL COUNT > targets.jsonl
//   vegeta attack -format=json -targets=targets.jsonl -rate=100/s -duration=30s | vegeta encode --to json > r.json
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

/**
 * @param {string} url @param {number} count @param {string} [header]
 * @returns {Generator<string>} one JSON target per line
 */
export function* vegetaTargets(url, count, header = 'X-Correlation-Id') {
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const target = new URL(url);
    target.searchParams.set('paasmon_id', id);
    yield JSON.stringify({ method: 'GET', url: target.toString(), header: { [header]: [id] } });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, count] = process.argv.slice(2);
  if (!url || !Number.isInteger(Number(count))) {
    process.stderr.write('usage: node vegeta-targets.js URL COUNT > targets.jsonl\n');
    process.exit(2);
  }
  for (const line of vegetaTargets(url, Number(count))) process.stdout.write(`${line}\n`);
}
