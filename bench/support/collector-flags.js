// The V8 flags the collector runs with on Cloud Foundry (the `command` of paasmon-collector in
// manifest.yml): the collector benches run it with them, not with the `paasmon` binary's shebang (a
// larger young generation, for the load generator).
import fs from 'node:fs';
import YAML from 'yaml';

const manifest = YAML.parse(fs.readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8'));
const collector = manifest.applications.find((/** @type {any} */ app) => app.name === 'paasmon-collector');

/** e.g. ['--max-semi-space-size=1', '--max-old-space-size=128'] */
export const COLLECTOR_NODE_FLAGS = /** @type {string[]} */ (String(collector.command).match(/--[a-z-]+=\d+/g) ?? []);
