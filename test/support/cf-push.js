// What `cf push` uploads from a checkout, and the app the Cloud Foundry Node.js buildpack stages
// from it, reproduced on this machine for tests that then run the staged app.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { watchOver } from './reaper.js';

// The cf CLI's own ignore lines, added to .cfignore (cloudfoundry/cli actor/sharedaction/resource.go).
export const CF_DEFAULT_IGNORES = [
  '.cfignore',
  '.DS_Store',
  '.git',
  '.gitignore',
  '.hg',
  '.svn',
  '_darcs',
  'manifest.yaml',
  'manifest.yml',
];

// What the buildpack sets when the app's environment does not (nodejs-buildpack supply.go, CreateDefaultEnv).
const BUILDPACK_DEFAULT_ENV = { NODE_ENV: 'production', NPM_CONFIG_PRODUCTION: 'true', NPM_CONFIG_LOGLEVEL: 'error' };

/**
 * Runs a program to its end; rejects with its output when it fails.
 * @param {string} command @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, timeoutMs?: number }} options
 */
export function run(command, args, { cwd, env, timeoutMs = 600_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) watchOver({ pids: [child.pid] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')}: ${signal ?? `exit ${code}`}\n${output}`));
    });
  });
}

/**
 * Of `paths` (relative to a checkout at `root`), those `cf push` uploads: the checkout's .cfignore
 * and the CLI's lines applied by git's gitignore matcher to empty files of the same names in a
 * scratch repository (so paths that only exist in someone's working tree can be asked about).
 * @param {string} root @param {string[]} paths
 * @returns {Promise<string[]>}
 */
export async function pushedPaths(root, paths) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'paasmon-cfignore-'));
  try {
    await run('git', ['init', '-q'], { cwd: scratch });
    for (const relative of paths) {
      fs.mkdirSync(path.dirname(path.join(scratch, relative)), { recursive: true });
      fs.writeFileSync(path.join(scratch, relative), '');
    }
    // Like the cf CLI, a checkout without .cfignore has only the CLI's own lines.
    const cfignore = path.join(root, '.cfignore');
    const excludes = [
      ...(fs.existsSync(cfignore) ? [`--exclude-from=${cfignore}`] : []),
      ...CF_DEFAULT_IGNORES.map((line) => `--exclude=${line}`),
    ];
    const listed = await run('git', ['ls-files', '--others', '-z', ...excludes], { cwd: scratch });
    return listed.split('\0').filter(Boolean).sort();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The literal `env:` of an app in the manifest (values with `((variables))` left out).
 * @param {string} manifestFile @param {string} appName
 * @returns {Record<string, string>}
 */
export function manifestEnv(manifestFile, appName) {
  const manifest = YAML.parse(fs.readFileSync(manifestFile, 'utf8'));
  const app = manifest.applications.find((/** @type {any} */ a) => a.name === appName);
  if (!app) throw new Error(`no application ${appName} in ${manifestFile}`);
  return Object.fromEntries(
    Object.entries(app.env ?? {})
      .map(([name, value]) => [name, String(value)])
      .filter(([, value]) => !value.includes('((')),
  );
}

/**
 * The node flags of an app's manifest `command` (`node <flags> collector/cli.js <command>`), to run it as
 * Cloud Foundry does.
 * @param {string} manifestFile @param {string} appName @returns {string[]}
 */
export function manifestNodeFlags(manifestFile, appName) {
  const manifest = YAML.parse(fs.readFileSync(manifestFile, 'utf8'));
  const words = String(manifest.applications.find((/** @type {any} */ a) => a.name === appName)?.command).split(' ');
  if (words[0] !== 'node') throw new Error(`the command of ${appName} in ${manifestFile} does not run node`);
  return words.slice(1, words.indexOf('collector/cli.js'));
}

/**
 * Installs the app in `appDir` as the Node.js buildpack does when it stages it (src/nodejs/npm/npm.go):
 * `npm install --unsafe-perm --userconfig <app>/.npmrc --cache <cache>` under the buildpack's default
 * environment overridden by the app's, then node_modules moved to `depsDir` and linked back, as at
 * launch. Only the download is spared: this machine's npm cache, preferred when it is fresh enough.
 * @param {string} appDir @param {string} depsDir @param {Record<string, string>} appEnv
 * @returns {Promise<string>} where node_modules now is
 */
export async function stageLikeBuildpack(appDir, depsDir, appEnv) {
  const cache = process.env.npm_config_cache || path.join(os.homedir(), '.npm');
  const env = { PATH: process.env.PATH ?? '', HOME: os.homedir(), ...BUILDPACK_DEFAULT_ENV, ...appEnv };
  const args = ['install', '--unsafe-perm', '--userconfig', path.join(appDir, '.npmrc'), '--cache', cache];
  await run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: appDir, env });
  const modules = path.join(depsDir, 'node_modules');
  fs.mkdirSync(depsDir, { recursive: true });
  fs.renameSync(path.join(appDir, 'node_modules'), modules);
  fs.symlinkSync(modules, path.join(appDir, 'node_modules'));
  return modules;
}

/** Disk use of a directory in KiB, as `du -sk` counts it. @param {string} dir */
export async function diskKiB(dir) {
  return Number((await run('du', ['-sk', dir], { cwd: dir })).split('\t')[0]);
}
