// The V8 flags of `npm start`, which runs the collector on Cloud Foundry (manifest.yml): the
// collector benches run it with them, not with the `paasmon` binary's shebang (a larger young
// generation, for the load generator).
import fs from 'node:fs';

const start = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start;

/** e.g. ['--max-semi-space-size=1', '--max-old-space-size=128'] */
export const NPM_START_FLAGS = /** @type {string[]} */ (start.match(/--[a-z-]+=\d+/g) ?? []);
